"""`yoke plugin update` and `yoke auto-mode reset`, Claude Code 2.1.332's commands, as a user runs them: the
plugin's new version from its marketplace, the autoMode section gone from the user settings after a yes."""

from __future__ import annotations

import json

from tests.cli.test_plugins_run import git, marketplace_repo, write


def test_plugin_update_installs_the_marketplaces_new_version(yoke, tmp_path, home):
    bare = marketplace_repo(tmp_path)
    assert yoke("plugin", "marketplace", "add", str(bare)).code == 0
    assert yoke("plugin", "install", "reviewer@team-tools").code == 0
    same = yoke("plugin", "update", "reviewer@team-tools")
    assert same.code == 0 and same.stdout.strip() == "reviewer@team-tools is at its latest version, 1.2.0"
    work = tmp_path / "market-src"
    write(
        work / "plugins/reviewer/.claude-plugin/plugin.json",
        json.dumps({"name": "reviewer", "version": "1.3.0"}),
    )
    write(work / "plugins/reviewer/commands/review.md", "---\ndescription: Review v2\n---\nReview again.\n")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "1.3.0", cwd=work)
    git("push", "-q", str(bare), "HEAD", cwd=work)
    run = yoke("plugin", "update", "reviewer@team-tools")
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "Updated reviewer@team-tools from 1.2.0 to 1.3.0; restart to apply"
    listed = yoke("plugin", "list").stdout
    assert "1.3.0" in listed and "1.2.0" not in listed
    installed = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    path = installed["plugins"]["reviewer@team-tools"][0]["installPath"]
    assert "Review again." in (tmp_path / path / "commands/review.md").read_text()


def test_plugin_update_of_what_is_not_installed_is_one_line(yoke):
    run = yoke("plugin", "update", "nope@nowhere")
    assert run.code == 1 and run.stderr.strip().startswith("yoke plugin: nope@nowhere is not installed")


def test_auto_mode_reset_removes_the_section_after_yes_only(yoke, home):
    settings = home / ".claude" / "settings.json"
    write(
        settings, json.dumps({"autoMode": {"allow": ["Run tests"], "soft_deny": ["x", "y"]}, "model": "opus"})
    )
    refused = yoke("auto-mode", "reset")  # from a pipe nobody says yes
    assert refused.code == 1 and "Aborted." in refused.stderr
    assert "allow (1 entry)" in refused.stdout and "soft_deny (2 entries)" in refused.stdout
    assert "autoMode" in json.loads(settings.read_text())
    done = yoke("auto-mode", "reset", "-y")
    assert done.code == 0, done.stderr
    assert json.loads(settings.read_text()) == {"model": "opus"}
    again = yoke("auto-mode", "reset", "-y")
    assert again.code == 0 and "already at its defaults" in again.stdout
