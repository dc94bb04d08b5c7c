"""Issue 44 items 1 and 5: folders the host owns, or refuses. A second Unix user squats the runtime folder
(`/tmp/yoke-<uid>` when XDG_RUNTIME_DIR is unset) with a planted token, cookie, fake socket and a link;
Yoke refuses in one line and nothing of the victim's reaches the squatter or is overwritten. And what a
session leaves on disk is 0600 in 0700 folders."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest
from tests.conftest import anthropic_env
from tests.host.conftest import agents, runtime_of, wait_for, yoke_cmd

from yoke.testing import ScriptedServer

SQUATTER = "yokesquat"

# the squatter's own program: it makes the folders the victim will look for, plants a token, a paired
# device's cookie, a link over the port file, and listens on a fake host.sock, writing down what it is told
PLANT = textwrap.dedent(
    """
    import json, os, socket, sys
    folder, key, victim_file, cookie_hash, heard = sys.argv[1:6]
    os.makedirs(os.path.join(folder, key), exist_ok=True)
    os.chmod(folder, 0o777); os.chmod(os.path.join(folder, key), 0o777)
    inner = os.path.join(folder, key)
    open(os.path.join(inner, "host.token"), "w").write("planted-token")
    devices = {"devices": [{"id": "evil", "label": "x", "paired": 0, "hash": cookie_hash}]}
    open(os.path.join(inner, "remote-devices.json"), "w").write(json.dumps(devices))
    os.symlink(victim_file, os.path.join(inner, "host.port"))
    server = socket.socket(socket.AF_UNIX)
    server.bind(os.path.join(inner, "host.sock")); os.chmod(os.path.join(inner, "host.sock"), 0o777)
    server.listen(8)
    open(heard, "w").close()
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        conn.settimeout(2)
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        with open(heard, "ab") as out:
            out.write(b"CONNECTED " + data + b"\\n")
        conn.close()
    """
)


def _squatter() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root to add a second Unix user (useradd); run the suite as root to test this")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not installed: cannot make a second Unix user")
    try:
        return pwd.getpwnam(SQUATTER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--system", SQUATTER], check=True)
        return pwd.getpwnam(SQUATTER)


def test_a_second_user_squatting_the_runtime_folder_is_refused(base_env, project, tmp_path):
    user = _squatter()
    shared_tmp = Path(tempfile.mkdtemp(prefix="yk-tmp-"))  # a /tmp of its own: sticky, world-writable
    os.chmod(shared_tmp, 0o1777)
    env = {k: v for k, v in base_env.items() if k != "XDG_RUNTIME_DIR"}
    env.update(TMPDIR=str(shared_tmp), ANTHROPIC_API_KEY="sk-ant-victims-secret-key")
    from yoke.config.trust import trust_folder

    trust_folder(project, Path(env["YOKE_HOME"]))  # so `--bg` meets the folder check, not the trust one
    from yoke.host.paths import config_home_key

    folder = shared_tmp / f"yoke-{os.getuid()}"
    victim_file = tmp_path / "victims-file.txt"
    victim_file.write_text("precious\n")
    cookie = "a-cookie-the-squatter-knows"
    heard = shared_tmp / "heard.txt"
    # the listener itself runs as the squatter (not under runuser, whose child outlived killing runuser)
    plant = subprocess.Popen(
        ["/usr/bin/python3", "-c", PLANT, str(folder),
         config_home_key(env), str(victim_file), hashlib.sha256(cookie.encode()).hexdigest(), str(heard)],
        stdout=subprocess.PIPE, text=True, user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd="/",
    )  # fmt: skip
    try:
        assert plant.stdout is not None and plant.stdout.readline().strip() == "ready"
        for args in (["--bg", "-p", "my secret prompt"], ["host", "--tcp", "127.0.0.1:0"],
                     ["remote-control", "devices"], ["remote-control", "revoke", "--all"]):  # fmt: skip
            run = yoke_cmd(env, project, *args, timeout=30)
            assert run.returncode != 0, (args, run.stdout)
            lines = run.stderr.strip().splitlines()
            assert len(lines) == 1 and "belongs to another user" in lines[0], (args, run.stderr)
            assert str(folder) in lines[0] and "Traceback" not in run.stderr
            assert "evil" not in run.stdout  # the planted device is never listed as the victim's
        assert heard.read_bytes() == b""  # the fake socket was never even connected to
        assert victim_file.read_text() == "precious\n"  # the link over host.port was not written through
        # the squatter's folder holds nothing of the victim's
        names = {p.name for p in (folder / config_home_key(env)).iterdir()}
        assert names == {"host.token", "remote-devices.json", "host.port", "host.sock"}
    finally:
        plant.kill()
        plant.wait()
        shutil.rmtree(shared_tmp, ignore_errors=True)


def test_a_folder_others_may_write_is_refused_and_a_link_too(base_env, project, tmp_path):
    """Without a second user: the victim's own folder made group-writable, or a link to another folder."""
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    env = dict(base_env, XDG_RUNTIME_DIR=str(runtime))
    (runtime / "yoke").mkdir(mode=0o700)
    os.chmod(runtime / "yoke", 0o770)
    run = yoke_cmd(env, project, "remote-control", "devices", timeout=30)
    assert run.returncode != 0 and "may be written by others" in run.stderr and "chmod 700" in run.stderr
    os.chmod(runtime / "yoke", 0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    from yoke.host.paths import config_home_key

    (runtime / "yoke" / config_home_key(env)).symlink_to(elsewhere)
    run = yoke_cmd(env, project, "remote-control", "devices", timeout=30)
    assert run.returncode != 0 and "is a symbolic link" in run.stderr, run.stderr


def test_what_a_session_leaves_on_disk_is_private(host_env, project):
    """Records, stream logs, the queue journal, the host's files: 0600 in 0700 folders (stream logs were
    0644 under a 0755 folder, beside a 0600 transcript)."""
    with ScriptedServer([{"content": [{"type": "text", "text": "done"}]}]) as srv:
        env = dict(host_env, **anthropic_env(srv))
        run = yoke_cmd(env, project, "--bg", "say done")
        assert run.returncode == 0, run.stderr
        wait_for(lambda: agents(env, project, "--all") and "done" in json.dumps(agents(env, project, "--all")) or
                 any(p.name.endswith(".stream.jsonl") and p.stat().st_size for p in
                     (Path(env["YOKE_HOME"]) / "hosted").iterdir()))  # fmt: skip
    for folder in (Path(env["YOKE_HOME"]) / "hosted", runtime_of(env), runtime_of(env).parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        for path in folder.iterdir():
            if path.is_file() and not path.is_symlink():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert any(p.name.endswith(".stream.jsonl") for p in (Path(env["YOKE_HOME"]) / "hosted").iterdir())


def test_an_older_wider_stream_log_is_narrowed(tmp_path):
    from yoke.host.owned import open_private, owned_dir

    folder = tmp_path / "hosted"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    log = folder / "x.stream.jsonl"
    log.write_text("old\n")
    os.chmod(log, 0o644)
    owned_dir(folder)
    with open_private(log, "a") as handle:
        handle.write("new\n")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(log.stat().st_mode) == 0o600
    os.symlink(tmp_path / "target", folder / "link.jsonl")
    with pytest.raises(OSError):
        open_private(folder / "link.jsonl", "a")
    assert not (tmp_path / "target").exists()
