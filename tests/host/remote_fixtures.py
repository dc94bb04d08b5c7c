"""`yoke remote-control --json` as a process: its first line pairs the tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.parse

import pytest


class RemotePage:
    def __init__(self, env, cwd, *args):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "yoke", "remote-control", "--json", *args],
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        first = self.proc.stdout.readline()
        assert first, self.proc.stderr.read()
        line = json.loads(first)
        self.url, self.code = line["url"], line["code"]
        self.fingerprint = line.get("fingerprint", "")
        self.share = line.get("share", "")
        self.pair_url = line.get("pair_url", "")
        parts = urllib.parse.urlsplit(self.url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.address = (parts.hostname, parts.port)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def remote_page():
    started: list[RemotePage] = []

    def start(env, cwd, *args) -> RemotePage:
        page = RemotePage(env, cwd, *args)
        started.append(page)
        return page

    yield start
    for page in started:
        page.stop()
