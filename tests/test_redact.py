"""`yoke.redact`: the secret values the permission layer's secret files hold are masked wherever they appear,
and a file tool's call on a secret file shows none of its content (the export's redaction, docs/remote.md)."""

from __future__ import annotations

import pytest

from yoke.redact import REDACTED, redact_text
from yoke.ui.export_html import redacted

KEY_BLOCK = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("id AKIAIOSFODNN7EXAMPLE.", f"id {REDACTED}."),
        (f"before\n{KEY_BLOCK}\nafter", f"before\n{REDACTED}\nafter"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE cut off", REDACTED),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG", f"aws_secret_access_key = {REDACTED}"),
        ('export DB_PASSWORD="hunter22x"', f'export DB_PASSWORD="{REDACTED}"'),
        ('{"apiKey": "abcdef123456"}', f'{{"apiKey": "{REDACTED}"}}'),
        (
            "git clone https://bob:s3cretpass@example.com/r.git",
            f"git clone https://bob:{REDACTED}@example.com/r.git",
        ),
        (
            "machine example.com login bob password pa55word",
            f"machine example.com login bob password {REDACTED}",
        ),
        ("Authorization: Bearer abcdefghijklmnop1234", f"Authorization: Bearer {REDACTED}"),
        ("token ghp_" + "a" * 36 + " used", f"token {REDACTED} used"),
        ("ANTHROPIC_API_KEY=sk-ant-api03-" + "x" * 24, f"ANTHROPIC_API_KEY={REDACTED}"),
    ],
)
def test_secret_values_are_masked(text, shown):
    assert redact_text(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=4096",
        "input_tokens: 1234567",
        "the author=someone",
        "see tokens.py and password reset",
        "a = 1",
    ],
)
def test_ordinary_text_stays(text):
    assert redact_text(text) == text


def test_a_file_tool_on_a_secret_file_shows_none_of_it(tmp_path):
    home = tmp_path
    read = {
        "type": "tool_use",
        "id": "r",
        "name": "Read",
        "input": {"file_path": str(home / ".aws" / "credentials")},
    }
    write = {
        "type": "tool_use",
        "id": "w",
        "name": "Write",
        "input": {"file_path": "/p/.env", "content": "X=plain"},
    }
    plain = {"type": "tool_use", "id": "p", "name": "Read", "input": {"file_path": "/p/app.py"}}
    results = [
        {"type": "tool_result", "tool_use_id": ident, "content": "x = 'plain words'"}
        for ident in ("r", "w", "p")
    ]
    stream = [
        {"type": "assistant", "message": {"role": "assistant", "content": [read, write, plain]}},
        {"type": "user", "message": {"role": "user", "content": results}},
    ]
    calls, answers = (m["message"]["content"] for m in redacted(stream, home))
    assert calls[0]["input"] == read["input"]  # which file stays visible
    assert calls[1]["input"] == {"file_path": "/p/.env", "content": REDACTED}
    assert [r["content"] for r in answers] == [REDACTED, REDACTED, "x = 'plain words'"]


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        ("~/.aws/credentials", True),  # as the tool reads it: ~ is the home folder
        (".aws/credentials", False),  # relative to /p, not the home folder
        ("config/id_rsa", True),
        ("../p/.env", True),
        ("src/app.py", False),
        ("", False),
    ],
)
def test_a_file_tool_path_is_read_as_the_tool_reads_it(tmp_path, path, secret):
    from yoke.redact import secret_file

    assert secret_file(path, tmp_path, "/p") is secret


@pytest.mark.parametrize(
    ("command", "secret"),
    [
        ("cat ~/.aws/credentials", True),
        ("source .env && ./run", True),
        ("wc -l < config/id_rsa", True),
        ("openssl x509 -in /etc/ssl/server.pem", True),
        ("cat README.md .env.example", False),
        ("ls -la 'unbalanced", False),
    ],
)
def test_a_command_naming_a_secret_file(tmp_path, command, secret):
    from yoke.redact import command_names_secret

    assert command_names_secret(command, "/p", tmp_path) is secret


def test_a_commands_output_from_a_secret_file_is_withheld(tmp_path):
    cat = {"type": "tool_use", "id": "c", "name": "Bash", "input": {"command": "cat .env"}}
    stream = [
        {"type": "assistant", "message": {"role": "assistant", "content": [cat]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c",
                                                                    "content": "MODE=plain-visible"}]}},
    ]  # fmt: skip
    calls, answers = (m["message"]["content"] for m in redacted(stream, tmp_path, "/p"))
    assert calls[0]["input"] == {"command": "cat .env"} and answers[0]["content"] == REDACTED
