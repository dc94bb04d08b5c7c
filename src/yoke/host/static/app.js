// The session page: a client of the host's wire over a WebSocket (docs/wire.md, docs/remote.md).
(function () {
  "use strict";
  const root = document.getElementById("session");
  if (!root) return;
  const session = root.dataset.session;
  const wsPort = root.dataset.wsPort;
  const readOnly = root.dataset.readOnly === "1";  // a share link: watch only
  const stream = document.getElementById("stream");
  const status = document.getElementById("status");
  let lastSeq = 0;  // the last sequence number shown: a reconnect asks for what follows it
  let count = 0;
  let socket = null;
  let delay = 500;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function send(method, params) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    count += 1;
    socket.send(JSON.stringify({id: "w" + count, type: "request", payload: {method: method, params: params}}));
  }

  function showPrompt(message) {
    const request = message.request || {};
    if (request.subtype !== "can_use_tool") return;
    const id = String(message.request_id);
    if (document.getElementById("ask-" + id)) return;
    const box = el("div", "ask");
    box.id = "ask-" + id;
    box.appendChild(el("div", "ask-title", "Allow " + request.tool_name + "?"));
    box.appendChild(el("pre", "ask-input", JSON.stringify(request.input || {}, null, 2)));
    stream.appendChild(box);
    if (readOnly) return;
    const allow = el("button", "allow", "Allow");
    const deny = el("button", "deny", "Deny");
    allow.type = deny.type = "button";
    allow.onclick = function () { send("answer", {session: session, request_id: id, response: {behavior: "allow"}}); };
    deny.onclick = function () {
      send("answer", {session: session, request_id: id, response: {behavior: "deny", message: "Denied from the remote page."}});
    };
    box.appendChild(allow);
    box.appendChild(deny);
  }

  const view = YokeRender.stream(stream);  // Markdown, tool calls, diffs, sub-agents: render.js

  function render(message) {
    const kind = message.type;
    if (kind === "control_request") showPrompt(message);
    else if (kind === "control_response") {
      const box = document.getElementById("ask-" + String((message.response || {}).request_id));
      if (box) box.remove();
    } else view.render(message);
  }

  function receive(event) {
    const message = JSON.parse(event.data);
    const payload = message.payload || {};
    if (message.type === "stream") {
      if (payload.seq <= lastSeq) return;  // already shown: no duplicates after a reconnect
      lastSeq = payload.seq;
      render(payload.message || {});
      window.scrollTo(0, document.body.scrollHeight);
    } else if (message.type === "response" && payload.pending) {
      window.yokeAttached = true;
      for (const pending of payload.pending) showPrompt(pending);
      status.textContent = payload.state || "";
    } else if (message.type === "notification" && (payload.params || {}).session === session) {
      status.textContent = payload.params.state || "";
    } else if (message.type === "error") {
      stream.appendChild(el("div", "error", (payload.message || payload.code || "error")));
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.hostname + ":" + wsPort + "/");
    socket.onopen = function () {
      delay = 500;
      window.yokeAttached = false;
      send("attach", {session: session, since: lastSeq, role: readOnly ? "watcher" : "driver"});
    };
    socket.onmessage = receive;
    socket.onclose = function () {
      status.textContent = "reconnecting";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }

  const form = document.getElementById("prompt-form");
  if (form) form.onsubmit = function (event) {
    event.preventDefault();
    const box = document.getElementById("prompt");
    const text = box.value.trim();
    if (!text) return;
    send("prompt", {session: session, text: text});
    box.value = "";
  };
  const interrupt = document.getElementById("interrupt");
  if (interrupt) interrupt.onclick = function () { send("interrupt", {session: session}); };
  // for tests and scripts: the last sequence number shown, and the current socket
  window.yokeLastSeq = function () { return lastSeq; };
  window.yokeSocket = function () { return socket; };
  connect();
})();
