"""The session host (`yoke host`): sessions that outlive their terminal, reached over one wire (docs/wire.md).

A front-end-level package. The host runs each session as a child `yoke` process speaking stream-json (the
Agent SDK's protocol, whose shapes `yoke.wire` builds), so a session that crashes, hangs in a native call or
grows without bound takes neither the host nor the other sessions with it, and each keeps its own
one-writer lock on its transcript. The host itself imports no part of a session.

- `paths.py`: where the socket, token and session records live.
- `protocol.py`: the bridge's framing (`id`, `type`, `payload`; 10 MB per message).
- `records.py`: each hosted session's record on disk, read by `yoke agents --json` even with no host.
- `hosted.py`: one hosted session: its child process, sequence numbers, replay buffer and clients.
- `server.py`: the host process: listeners, methods, idle stop.
- `client.py`: the blocking client the commands use, starting the host on demand.
- `remote.py`: a hosted session as the terminal UI sees a session (`yoke attach` in a terminal).
- `registered.py` / `terminal_link.py` / `registrar.py`: a `yoke` terminal's session lent to the host (its
  terminal the one writer): the host's side, the terminal's link, and when the terminal registers.
- `attach.py`: `yoke attach`, the terminal UI or a line client.
- `render.py`: stream-json messages as text lines (`logs`, the line client).
- `websocket.py`: the optional WebSocket listener.
- `commands.py`: `--bg`, `agents --json`, `attach`, `logs`, `stop`, `kill`, `rm`, `respawn`, `host`.
"""
