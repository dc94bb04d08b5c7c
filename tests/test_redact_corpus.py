"""Issue 44 item 7: one redactor (yoke.redact) for the export, the live page, the share page and telemetry,
tested on a corpus of secret shapes: a planted secret of each shape never reaches any of them."""

from __future__ import annotations

import json

import pytest

from yoke.redact import REDACTED, redact_text, redact_value

# (shape, a line holding it, the secret part that must not be shown)
CORPUS = [
    ("aws access key id", "key AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    ("aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1x2y3z\n-----END RSA PRIVATE KEY-----",
     "MIIEpAIBAAKCAQEA1x2y3z"),
    ("openssh key, cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAcut", "b3BlbnNzaC1rZXkt"),
    ("github token", "ghp_" + "A1b2C3d4" * 5, "ghp_A1b2C3d4A1b2"),
    ("github fine-grained", "github_pat_" + "11ABCDEFG" * 4, "github_pat_11ABCDEFG"),
    ("gitlab token", "glpat-" + "x7Y8z9" * 4, "glpat-x7Y8z9"),
    ("anthropic key", "sk-ant-api03-" + "Zq9" * 12, "sk-ant-api03-Zq9"),
    ("openai key", "sk-proj-" + "Mn4" * 12, "sk-proj-Mn4"),
    ("slack token", "xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012"),
    ("slack webhook", "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("google api key", "AIza" + "SyD-abcdefghijklmnopqrstuvwxyz01234", "SyD-abcdefghijklmnopq"),
    ("google oauth", "ya29." + "a0AfH6SMB" * 4, "a0AfH6SMBa0AfH6SMB"),
    ("stripe key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("hugging face", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz12345678", "hf_AbCdEfGhIjKlMnOp"),
    ("npm token", "npm_" + "a1B2c3D4e5" * 3 + "F6g7H8", "npm_a1B2c3D4e5"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N"),
    ("bearer header", "Authorization: Bearer 0123456789abcdefXYZ", "0123456789abcdefXYZ"),
    ("url password", "postgres://app:S3cr3tPassw0rd@db.internal:5432/app", "S3cr3tPassw0rd"),
    ("netrc", "machine api.example.com login bob password hunter2hunter2", "hunter2hunter2"),
    (".env password", 'DB_PASSWORD="correct-horse-battery"', "correct-horse-battery"),
    (".env _KEY", "STRIPE_KEY=rk_abcdef123456", "rk_abcdef123456"),
    (".env _PASS", "SMTP_PASS=smtp-pass-value-9", "smtp-pass-value-9"),
    (".env token", "SENTRY_AUTH_TOKEN=sntrys_abcdef0123456789", "sntrys_abcdef0123456789"),
    ("json api key", '{"apiKey": "abcdef1234567890"}', "abcdef1234567890"),
    ("azure connection", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg=;x=y",
     "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg="),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "line", "secret"), CORPUS, ids=[c[0] for c in CORPUS])
def test_each_shape_is_masked(shape, line, secret):
    shown = redact_text(line)
    assert secret not in shown and REDACTED in shown, shown
    # inside JSON too (a stream message): the masked message stays JSON
    message = {"type": "assistant", "message": {"content": [{"type": "text", "text": f"see {line} ok"}]}}
    masked = redact_value(json.loads(json.dumps(message)))
    assert secret not in json.dumps(masked)


def test_the_live_page_masks_what_it_is_sent_and_answers_with_the_real_input():
    """The page's client (host/page_redact.py): a permission prompt's input is shown masked, and an answer
    with the input as shown runs the input as asked."""
    import asyncio

    from yoke.host.page_redact import PageClient

    class FakeSocket:
        def __init__(self):
            self.sent: list[str] = []

        async def send(self, text):
            self.sent.append(text)

    async def run():
        ws = FakeSocket()
        client = PageClient(ws, 1 << 20)
        command = "curl -H 'Authorization: Bearer 0123456789abcdefXYZ' https://x"
        prompt = {"id": "a", "type": "stream", "payload": {"session": "s", "seq": 1, "message": {
            "type": "control_request", "request_id": "r1",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": command}}}}}  # fmt: skip
        text = "\n".join(line for _, line, _ in CORPUS)
        chat = {"id": "a", "type": "stream", "payload": {"session": "s", "seq": 2, "message": {
            "type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}}}  # fmt: skip
        client.send((json.dumps(prompt) + "\n").encode())
        client.send((json.dumps(chat) + "\n").encode())
        await asyncio.sleep(0.05)
        seen = "\n".join(ws.sent)
        for _, _, secret in CORPUS:
            assert secret not in seen, secret
        shown = json.loads(ws.sent[0])["payload"]["message"]["request"]["input"]
        assert "0123456789abcdefXYZ" not in shown["command"]
        answer = {"id": "x", "type": "request", "payload": {"method": "answer", "params": {
            "session": "s", "request_id": "r1", "response": {"behavior": "allow", "updatedInput": shown}}}}  # fmt: skip
        restored = json.loads(client.restore(json.dumps(answer)))
        assert restored["payload"]["params"]["response"]["updatedInput"]["command"] == command
        changed = json.loads(json.dumps(answer))
        changed["payload"]["params"]["response"]["updatedInput"] = {"command": "ls"}
        assert json.loads(client.restore(json.dumps(changed)))["payload"]["params"]["response"][
            "updatedInput"] == {"command": "ls"}  # fmt: skip
        client.closed = True
        client.ready.set()

    asyncio.run(run())


def test_the_export_masks_every_shape(tmp_path):
    from yoke.ui.export_html import redacted

    text = "\n".join(line for _, line, _ in CORPUS)
    stream = [{"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}]
    shown = json.dumps(redacted(stream, tmp_path))
    for _, _, secret in CORPUS:
        assert secret not in shown, secret


def test_telemetry_never_carries_a_failed_commands_secret(yoke, project):
    """A real `yoke -p` with OTel on: a Bash command that prints secrets and fails; tool_result.error masks
    them."""
    from tests.conftest import anthropic_env
    from tests.telemetry.test_otel_export import OtlpReceiver, otel_env

    from yoke.testing import ScriptedServer

    (project / "leak.txt").write_text("\n".join(line for _, line, _ in CORPUS) + "\n")
    bash = {"type": "tool_use", "id": "toolu_b", "name": "Bash", "input": {"command": "cat leak.txt; exit 3"}}
    turns = [{"content": [bash]}, {"content": [{"type": "text", "text": "done"}]}]
    with OtlpReceiver() as receiver, ScriptedServer(turns) as srv:
        run = yoke("-p", "go", "--allowedTools", "Bash", env={**anthropic_env(srv), **otel_env(receiver)})
        assert run.code == 0, run.stderr
    results = [e for e in receiver.events() if e["attributes"].get("event.name") == "tool_result"]
    assert results and results[0]["attributes"].get("success") == "false"
    error = results[0]["attributes"].get("error", "")
    assert REDACTED in error
    for _, _, secret in CORPUS:
        assert secret not in json.dumps(receiver.events()), secret
