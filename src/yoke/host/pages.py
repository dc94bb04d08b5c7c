"""The remote-control page's HTML: the pairing, session and list pages, the static files the session page
loads, and what a share link may see of the screen (`host/webpage.py` serves them)."""

from __future__ import annotations

import html
from importlib import resources

HTML = {"Content-Type": "text/html; charset=utf-8"}
REASONS = {200: "OK", 303: "See Other", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large", 421: "Misdirected Request",
            429: "Too Many Requests", 431: "Request Header Fields Too Large"}  # fmt: skip


def page_html(title: str, body: str, script: bool = False) -> str:
    js = (
        "".join(f'<script src="/static/{name}.js"></script>' for name in ("render", "prompts", "app", "push"))
        if script
        else ""
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{html.escape(title)} · Yoke</title><link rel="stylesheet" href="/static/style.css"></head>'
        f"<body>{body}{js}</body></html>"
    )


# A scanned QR code opens `URL#pair=CODE`: the fragment never reaches a server. The page takes the code out
# of the address bar and history first, then pairs with it as if typed (a POST; the cookie comes back).
# Inline, because without the cookie every other route, /static/ too, answers 401.
PAIR_FROM_FRAGMENT = """<script>(function () {
  var form = document.getElementById("pair-form");
  form.elements.next.value = location.pathname;
  var found = /^#pair=([A-Za-z0-9]+)$/.exec(location.hash);
  if (!found) return;
  history.replaceState(null, "", location.pathname + location.search);
  if (document.querySelector("[role=alert]")) return;
  form.elements.code.value = found[1];
  form.submit();
})();</script>"""


def pairing_page(error: str = "") -> str:
    note = f'<p role="alert">{html.escape(error)}</p>' if error else ""
    return page_html(
        "Pair",
        '<header><strong>Yoke</strong></header><main><h1>Pair this browser</h1>' + note
        + '<form id="pair-form" class="pair" method="post" action="/pair">'
        '<label for="code">Pairing code</label><div class="row">'
        '<input id="code" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus>'
        '<input type="hidden" name="next" value="/"><button type="submit" class="primary">Pair</button></div>'
        "<p>The code is printed where <code>yoke remote-control</code> runs, or scan its QR code.</p>"
        "</form></main>" + PAIR_FROM_FRAGMENT,
    )  # fmt: skip


def session_page(session: str, ws_port: int, read_only: bool = False) -> str:
    from yoke.seams import MODES

    name = html.escape(session)
    controls = (
        ""
        if read_only
        else '<form id="prompt-form"><div id="controls"><ul id="queue" aria-label="Queued"></ul>'
        '<label for="prompt">Prompt</label>'
        '<textarea id="prompt" name="prompt" rows="2" enterkeyhint="send" aria-describedby="prompt-hint"></textarea>'
        '<span id="prompt-hint" class="hint">Enter sends; Shift+Enter for a new line</span>'
        '<button type="submit">Send</button><button type="button" id="interrupt">Interrupt</button></div></form>'
    )  # fmt: skip
    options = "".join(f'<option value="{m}">{m}</option>' for m in MODES)
    mode = (
        ""
        if read_only  # the permission mode: sent as the Agent SDK's set_permission_mode control request
        else f'<label class="mode">Permission mode <select id="mode">{options}</select></label>'
    )
    back = '<span class="chip">read-only</span>' if read_only else '<a href="/">Sessions</a>'
    return page_html(
        session,
        f'<header>{back}<strong id="session-name">{name}</strong><span id="status" role="status"></span>{mode}</header>'
        f'<main id="session" data-session="{name}" data-ws-port="{ws_port}" data-read-only="{int(read_only)}">'
        f'<div id="stream"></div></main>{controls}',
        script=True,
    )


# Starting one of the user's presets (host/presets.py): hidden until the host lists them to this device, which
# it does for a `drive` or `admin` device only (list.js fills the choices).
NEW_SESSION = (
    '<section id="new-session" aria-labelledby="new-title" hidden><h2 id="new-title">New session</h2>'
    '<ul id="preset-problems" aria-label="Presets left out"></ul>'
    '<form id="new-form"><fieldset id="preset-choices"><legend>Preset</legend></fieldset>'
    '<label for="new-prompt">First prompt (optional)</label>'
    '<textarea id="new-prompt" name="prompt" rows="2"></textarea>'
    '<p id="new-problem" role="alert"></p>'
    '<button type="submit" class="primary">Start</button></form></section>'
)


def list_page(ws_port: int) -> str:
    """The list's rows come over the WebSocket (list.js), which needs the page key as well as the cookie."""
    body = (
        "<header><strong>Yoke</strong></header><main><h1>Sessions</h1>"
        f'<ul id="sessions" data-ws-port="{ws_port}"><li>Loading…</li></ul>{NEW_SESSION}</main>'
    )
    scripts = '<script src="/static/list.js"></script><script src="/static/push.js"></script>'
    return page_html("Sessions", body + scripts)


# What a browser may load before it is paired: the stylesheet alone (no data in it), so the pairing page is
# styled. Everything else answers 401 until the pairing cookie is shown.
PUBLIC = frozenset({"/static/style.css"})

STATIC = {
    "/static/app.js": "text/javascript",
    "/static/render.js": "text/javascript",
    "/static/prompts.js": "text/javascript",
    "/static/share.js": "text/javascript",
    "/static/list.js": "text/javascript",
    "/static/style.css": "text/css",
    "/static/push.js": "text/javascript",  # the "Notify me" button (docs/notifications.md)
    "/static/push-sw.js": "text/javascript",  # its service worker: shows a push, opens its session
}


def static(path: str) -> tuple[int, dict[str, str], bytes]:
    if path not in STATIC:
        return 404, {}, b"Not found\n"
    data = resources.files("yoke.host").joinpath(path.lstrip("/")).read_bytes()
    return 200, {"Content-Type": f"{STATIC[path]}; charset=utf-8"}, data
