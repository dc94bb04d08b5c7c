// The session page: a client of the host's wire over a WebSocket (docs/wire.md, docs/remote.md).
(function () {
  "use strict";
  const root = document.getElementById("session");
  if (!root) return;
  const session = root.dataset.session;
  const wsPort = root.dataset.wsPort;
  const readOnly = root.dataset.readOnly === "1";  // a share link: watch only
  // The page key (docs/remote.md): pairing hands it over in the fragment (never sent to a server); it is
  // kept in this origin's storage, which is this port's alone, and shown when the WebSocket opens.
  const handed = /^#k=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (handed) {
    localStorage.setItem("yoke_key", handed[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const pageKey = encodeURIComponent(localStorage.getItem("yoke_key") || "");
  const stream = document.getElementById("stream");
  const view = YokeRender.stream(stream);  // Markdown, tool calls, diffs, sub-agents: render.js
  const status = document.getElementById("status");
  let lastSeq = 0;  // the last sequence number shown: a reconnect asks for what follows it
  let count = 0;
  let socket = null;
  let delay = 500;

  function stateName(state) {  // the host's words, as the session list says them
    return state === "working" ? "running" : (state || "");
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const replies = {};  // request id -> what to do with its response or error

  function send(method, params, onReply) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    count += 1;
    if (onReply) replies["w" + count] = onReply;
    socket.send(JSON.stringify({id: "w" + count, type: "request", payload: {method: method, params: params}}));
    return true;
  }

  const asked = {};  // request id -> the tool call it asks about (a denial labels that call "Denied")

  function showPrompt(message) {
    const request = message.request || {};
    if (request.subtype !== "can_use_tool") return;
    const id = String(message.request_id);
    if (document.getElementById("ask-" + id)) return;
    asked[id] = request.tool_use_id;
    const box = el("div", "ask");
    box.id = "ask-" + id;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Waiting for you");
    // a permission card goes inside its call's block, below the diff or command shown there: once
    const special = request.tool_name === "AskUserQuestion" || request.tool_name === "ExitPlanMode";
    const call = special ? null : view.toolNode(request.tool_use_id);
    if (call) call.insertBefore(box, call.querySelector(".tool-output"));
    else stream.appendChild(box);
    // the tool's own form: a permission, AskUserQuestion's questions, ExitPlanMode's plan (prompts.js)
    YokePrompts.fill(box, request, function (response) {
      send("op", {session: session, op: {op: "reply", request_id: id, answer: response}});
    }, readOnly, !!call);
  }

  // a message from another session held for a person (docs/scheduling.md): Deliver or Discard, once
  function showHeld(held) {
    const id = String(held.message_id);
    if (document.getElementById("held-" + id)) return;
    const box = el("div", "ask held");
    box.id = "held-" + id;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Message waiting for approval");
    box.appendChild(el("div", "ask-title", "Message from session " + held.from));
    if (held.summary) box.appendChild(el("div", "ask-summary", held.summary));
    box.appendChild(el("pre", "held-text", held.content || ""));
    if (!readOnly) {
      const row = el("div", "actions");
      [["Deliver", true], ["Discard", false]].forEach(function (pair) {
        const button = el("button", pair[1] ? "allow" : "deny", pair[0]);
        button.type = "button";
        button.onclick = function () {
          row.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
          send("message", {session: session, message_id: id, approve: pair[1]}, function (failure) {
            if (!failure) return;  // the host's message_released line removes the card
            box.appendChild(el("div", "error", failure.message || failure.code || "error"));
          });
        };
        row.appendChild(button);
      });
      box.appendChild(row);
    }
    stream.appendChild(box);
  }

  function released(message) {
    const box = document.getElementById("held-" + String(message.message_id));
    if (box) box.remove();
  }

  function answered(message) {
    const response = message.response || {};
    const id = String(response.request_id);
    const box = document.getElementById("ask-" + id);
    if (box) box.remove();
    if ((response.response || {}).behavior === "deny" && asked[id]) view.deny(asked[id]);
  }

  function showState(state) {
    const name = stateName(state);
    status.textContent = name;
    status.className = name ? "state-" + name : "";
  }

  // -- the session's state beside the stream: permission mode, queued prompts ----------------------------
  const modeSelect = document.getElementById("mode");
  const queue = document.getElementById("queue");
  let mode = "";

  function showMode(value) {
    if (!value || !modeSelect) return;
    mode = value;
    if (![...modeSelect.options].some(function (o) { return o.value === value; })) {
      modeSelect.appendChild(el("option", "", value)).value = value;
    }
    modeSelect.value = value;
  }

  function showQueue(texts) {
    if (!queue || !Array.isArray(texts)) return;
    queue.replaceChildren(...texts.map(function (text) { return el("li", "queued", "queued: " + text); }));
  }

  function observe(message) {  // what a stream message says about the session (rendering is render's)
    if (message.type === "system" && message.permissionMode) showMode(message.permissionMode);
  }


  function render(message) {
    const kind = message.type;
    if (kind === "control_request") showPrompt(message);
    else if (kind === "control_response") answered(message);
    else if (kind === "system" && message.subtype === "message_held") showHeld(message);
    else if (kind === "system" && message.subtype === "message_released") released(message);
    else view.render(message);
  }

  function receive(event) {
    const message = JSON.parse(event.data);
    const payload = message.payload || {};
    if (message.type === "stream") {
      if (payload.seq <= lastSeq) return;  // already shown: no duplicates after a reconnect
      lastSeq = payload.seq;
      observe(payload.message || {});
      render(payload.message || {});
      window.scrollTo(0, document.body.scrollHeight);
    } else if (replies[message.id]) {
      const reply = replies[message.id];
      delete replies[message.id];
      reply(message.type === "error" ? payload : null, payload);
    } else if (message.type === "response" && payload.pending) {
      window.yokeAttached = true;
      if (payload.name) {  // the header says the session's name (the address has its id)
        document.getElementById("session-name").textContent = payload.name;
        document.title = payload.name + " · Yoke";
      }
      for (const pending of payload.pending) showPrompt(pending);
      for (const held of payload.heldMessages || []) showHeld(held);
      showState(payload.state);
      showMode(payload.permissionMode);
      showQueue(payload.queued);
    } else if (message.type === "notification" && (payload.params || {}).session === session) {
      showState(payload.params.state);
      showMode(payload.params.permissionMode);
      showQueue(payload.params.queued);
    } else if (message.type === "error") {
      stream.appendChild(el("div", "error", (payload.message || payload.code || "error")));
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.hostname + ":" + wsPort + "/?k=" + pageKey);
    socket.onopen = function () {
      delay = 500;
      window.yokeAttached = false;
      send("attach", {session: session, since: lastSeq, role: readOnly ? "watcher" : "driver"});
    };
    socket.onmessage = receive;
    socket.onclose = function (event) {
      if (event.code === 4401) { location.reload(); return; }  // this device was revoked: pair again
      showState("reconnecting");
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }

  const form = document.getElementById("prompt-form");
  const promptBox = document.getElementById("prompt");
  // Enter sends, Shift+Enter adds a new line (as in the terminal); not while an input method composes
  if (promptBox) promptBox.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    form.requestSubmit();
  });
  if (form) form.onsubmit = function (event) {
    event.preventDefault();
    const box = document.getElementById("prompt");
    const text = box.value.trim();
    if (!text) return;
    send("op", {session: session, op: {op: "prompt", content: text}});
    box.value = "";
  };
  if (modeSelect) modeSelect.onchange = function () {
    const wanted = modeSelect.value;
    const sent = send("op", {session: session, op: {op: "set_mode", mode: wanted}},
      function (failure) {
        if (!failure) { showMode(wanted); return; }
        stream.appendChild(el("div", "error", "permission mode not changed: " + (failure.message || failure.code)));
        showMode(mode);
      });
    if (!sent) showMode(mode);
  };
  const interrupt = document.getElementById("interrupt");
  if (interrupt) interrupt.onclick = function () { send("op", {session: session, op: {op: "interrupt"}}); };
  // for tests and scripts: the last sequence number shown, and the current socket
  window.yokeLastSeq = function () { return lastSeq; };
  window.yokeSocket = function () { return socket; };
  connect();
})();
