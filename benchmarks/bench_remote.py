"""`yoke remote-control` (docs/remote.md): time from a token leaving the scripted model server to its text on
the page, in headless Chromium (Debian's, driven by Playwright). Goal: under 100 ms on this machine.

The server's send time of each text delta and the page's time of each word (a MutationObserver) are both
read from the wall clock of this one machine. Path: model server -> session process -> host -> relay ->
WebSocket -> page.

Run: `python benchmarks/bench_remote.py`."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from yoke.testing import ScriptedServer
from yoke.testing.handler import ScriptedHandler

CHROMIUM = "/usr/bin/chromium"
WORDS = 60
GAP = 0.1  # seconds between the model's tokens: each is timed alone
SENT: list[tuple[float, int]] = []  # (when, characters of text sent so far) per text delta

OBSERVE = """() => {
  window.seen = [];
  new MutationObserver(() => {
    const node = document.querySelector('.live');
    if (node) window.seen.push([Date.now() / 1000, node.textContent.length]);
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _record_sends() -> None:
    write = ScriptedHandler._write_chunk

    def timed(self, data: bytes) -> None:
        write(self, data)
        for line in data.splitlines():
            if line.startswith(b"data:") and b"text_delta" in line:
                delta = json.loads(line[5:])["delta"]["text"]
                SENT.append((time.time(), (SENT[-1][1] if SENT else 0) + len(delta)))

    ScriptedHandler._write_chunk = timed  # type: ignore[method-assign]


def _env(root: Path, srv) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "YOKE_", "CLAUDE_"))
    }
    env.update(HOME=str(root), YOKE_HOME=str(root / ".yoke"), CLAUDE_CONFIG_DIR=str(root / ".claude"),
               XDG_RUNTIME_DIR=str(root / "run"), ANTHROPIC_BASE_URL=srv.url, ANTHROPIC_API_KEY="sk-bench",
               YOKE_HOST_IDLE_STOP="30")  # fmt: skip
    (root / "run").mkdir(exist_ok=True)
    from yoke.config.trust import trust_folder

    trust_folder(root, root / ".yoke")  # `yoke --bg` runs only in a trusted folder
    return env


def main() -> None:
    if not os.path.exists(CHROMIUM):
        print("remote-control token-to-page latency: skipped (no /usr/bin/chromium)")
        return
    from playwright.sync_api import sync_playwright

    _record_sends()
    text = " ".join(f"w{i}" for i in range(WORDS))
    with tempfile.TemporaryDirectory(prefix="ykb") as tmp, ScriptedServer(
        [{"content": [{"type": "text", "text": "ready"}]}, {"content": [{"type": "text", "text": text}], "delay": GAP}]
    ) as srv:  # fmt: skip
        root = Path(tmp)
        env = _env(root, srv)
        # `yoke --bg` runs only in a trusted folder (as Claude Code 2.1.332 does)
        subprocess.run(
            [sys.executable, "-m", "yoke", "trust"], env=env, cwd=root, capture_output=True, check=True
        )
        run = subprocess.run([sys.executable, "-m", "yoke", "--bg", "--include-partial-messages", "ready?"],
                             env=env, cwd=root, capture_output=True, text=True, check=True)  # fmt: skip
        ident = run.stdout.split("· ")[1].split()[0]
        page_proc = subprocess.Popen([sys.executable, "-m", "yoke", "remote-control", "--json", ident], env=env,
                                     cwd=root, stdout=subprocess.PIPE, text=True)  # fmt: skip
        try:
            assert page_proc.stdout is not None
            first = json.loads(page_proc.stdout.readline())
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync"])  # fmt: skip
                page = browser.new_page()
                page.set_default_timeout(60_000)
                page.goto(first["url"])  # the session's page: pairing returns to it
                page.get_by_label("Pairing code").fill(first["code"])
                paired_at = time.monotonic()
                page.get_by_role("button", name="Pair").click()  # back to the session's page, paired
                page.get_by_text("ready", exact=True).wait_for()
                first_event_ms = (time.monotonic() - paired_at) * 1000
                page.wait_for_function("window.yokeAttached")
                weight = page.evaluate(WEIGHT)
                page.evaluate(OBSERVE)
                page.get_by_label("Prompt").fill("go")
                SENT.clear()  # the "ready" turn's deltas came before the page watched
                page.get_by_role("button", name="Send").click()
                page.get_by_text(f"w{WORDS - 1}").first.wait_for()
                seen = page.evaluate("window.seen")
                browser.close()
        finally:
            page_proc.send_signal(signal.SIGINT)
            page_proc.wait(10)
            subprocess.run(
                [sys.executable, "-m", "yoke", "kill", ident], env=env, cwd=root, capture_output=True
            )
    gaps = sorted(
        (next(at for at, length in seen if length >= sent) - when) * 1000
        for when, sent in SENT
        if any(length >= sent for _, length in seen)
    )
    if not gaps:
        print("remote-control token-to-page latency: no token timed")
        return
    p95 = gaps[min(len(gaps) - 1, int(len(gaps) * 0.95))]
    print(f"remote-control token-to-page latency: median {statistics.median(gaps):.1f} ms, p95 {p95:.1f} ms "
          f"over {len(gaps)} text deltas (goal < 100 ms)")  # fmt: skip
    print(f"remote-control pairing to first event on the page: {first_event_ms:.0f} ms")
    print(f"remote-control session page weight: {weight[0]} bytes over the wire in {weight[1]} requests "
          "(HTML, scripts, stylesheet, with headers; the WebSocket not counted)")  # fmt: skip


# what the paired session page cost to load: the navigation and every resource, headers included
WEIGHT = """() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .reduce((sum, e) => [sum[0] + e.transferSize, sum[1] + 1], [0, 0])"""


SYNTHETIC = """(count) => {
  const text = "## Step\\n\\nSome **bold** words, `code`, a [link](https://example.org).\\n\\n- one\\n- two\\n\\n"
    + "```python\\n" + "x = 1\\n".repeat(20) + "```\\n";
  const old = Array.from({length: 60}, (_, i) => "line " + i).join("\\n");
  const changed = old.replace("line 30", "line thirty").replace("line 7", "line seven\\nadded");
  const out = Array.from({length: 100}, (_, i) => "output " + i).join("\\n");
  const messages = [];
  for (let i = 0; i < count; i += 1) {
    const id = "t" + i;
    messages.push({type: "assistant", message: {content: [{type: "text", text: text}]}});
    messages.push({type: "assistant", message: {content: [{type: "tool_use", id: id, name: i % 2 ? "Edit" : "Bash",
      input: i % 2 ? {file_path: "/f.py", old_string: old, new_string: changed} : {command: "ls"}}]}});
    messages.push({type: "user", message: {content: [{type: "tool_result", tool_use_id: id, content: out}]}});
  }
  const view = YokeRender.stream(document.getElementById("stream"));
  const start = performance.now();
  for (const message of messages) view.render(message);
  document.body.offsetHeight;  // layout included
  return [messages.length, performance.now() - start];
}"""


def render_figure() -> None:
    """render.js alone: a long session (Markdown, Edit diffs, 100-line outputs) rendered at once, as an export
    opens or a page catches up."""
    from importlib import resources

    from playwright.sync_api import sync_playwright

    script = resources.files("yoke.host").joinpath("static", "render.js").read_text()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.set_content('<!doctype html><main><div id="stream"></div></main>')
        page.add_script_tag(content=script)
        count, took = page.evaluate(SYNTHETIC, 500)
        browser.close()
    print(f"remote-control rendering (render.js): {count} messages in {took:.0f} ms "
          f"({took / count:.2f} ms per message; Markdown, Edit diffs, 100-line outputs)")  # fmt: skip


def page_weight() -> dict[str, int]:
    """Bytes a browser loads for each page (HTML + CSS + JS, uncompressed, as served): the pairing page, the
    session list and a session."""
    from importlib import resources

    from yoke.host import pages

    def static(name: str) -> int:
        return len(resources.files("yoke.host").joinpath("static", name).read_bytes())

    css = static("style.css")
    lister = getattr(pages, "list_page", None)  # before issue 47 the list's HTML was webpage.py's
    list_html = (
        lister(40000)
        if lister
        else '<h1>Sessions</h1><ul id="sessions" data-ws-port="40000"><li>Loading…</li></ul>'
    )
    weights = {
        "pairing": len(pages.pairing_page().encode()) + css,
        "list": len(pages.page_html("Sessions", list_html).encode() if not lister else list_html.encode()) + css
        + static("list.js"),
        "session": len(pages.session_page("0123abcd", 40000).encode()) + css
        + sum(static(f"{name}.js") for name in ("render", "prompts", "app")),
    }  # fmt: skip
    print("remote-control page weight (HTML+CSS+JS bytes, uncompressed): "
          + ", ".join(f"{name} {size:,}" for name, size in weights.items()))  # fmt: skip
    return weights


if __name__ == "__main__":
    page_weight()
    main()
    if os.path.exists(CHROMIUM):
        render_figure()
