"""Shell machinery behind the Bash tool and its background tasks.

`process` spawns one bash per command in its own process group and kills whole groups; `script` builds the
wrapper a command runs in (alias snapshot, env file, cwd trailer); `output` caps what the model sees;
`tasks` keeps the per-session background tasks; `state` ties them to a session.
"""
