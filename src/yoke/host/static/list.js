// The session list: each session's state, cost and last activity, kept current over the host's wire
// (`list`, asked again on every session.state notification and every 10 s; docs/remote.md).
(function () {
  "use strict";
  const list = document.getElementById("sessions");
  if (!list) return;
  // The page key (docs/remote.md): pairing hands it over in the fragment (never sent to a server); it is
  // kept in this origin's storage, which is this port's alone, and shown when the WebSocket opens.
  const handed = /^#k=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (handed) {
    localStorage.setItem("yoke_key", handed[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  const pageKey = encodeURIComponent(localStorage.getItem("yoke_key") || "");
  let socket = null;
  let delay = 500;
  let asked = 0;
  let soon = null;

  function ago(ms) {
    if (!ms) return "";
    const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    if (s < 60) return s + "\u00a0s ago";  // no-break spaces: "21 s ago" never wraps
    if (s < 3600) return Math.floor(s / 60) + "\u00a0min ago";
    if (s < 86400) return Math.floor(s / 3600) + "\u00a0h ago";
    return new Date(ms).toLocaleString();
  }

  // a cost to the cent or finer: never "$0.0000" after a paid request, nor "$0.00" for under a cent
  function money(usd) {
    const x = Number(usd) || 0;
    if (x <= 0) return "$0.00";
    if (x < 0.0001) return "<$0.0001";
    if (x < 1) return "$" + x.toPrecision(3);
    return "$" + x.toLocaleString("en-US", {minimumFractionDigits: 2, maximumFractionDigits: 2});
  }

  function cell(tag, cls, text) {
    const node = document.createElement(tag);
    node.className = cls;
    node.textContent = text;
    return node;
  }

  function row(session) {
    const item = document.createElement("li");
    item.dataset.session = session.id;
    const link = cell("a", "", session.name || session.id);
    link.href = "/s/" + encodeURIComponent(session.id);
    const state = session.state === "working" ? "running" : (session.state || "");
    const when = cell("time", "activity", ago(session.lastActivityAt));
    when.dataset.ms = session.lastActivityAt || "";
    if (session.lastActivityAt) when.dateTime = new Date(session.lastActivityAt).toISOString();
    const parts = [link, cell("span", "state chip state-" + session.state, state),
      cell("span", "cost", money(session.costUsd)), when];
    if (session.queued) parts.push(cell("span", "queued", session.queued + " queued"));
    if (session.profile) parts.push(cell("span", "profile", "profile\u00a0" + session.profile));
    for (const part of parts) { item.appendChild(part); item.appendChild(document.createTextNode(" ")); }
    return item;
  }

  function show(sessions) {
    if (!sessions.length) { list.replaceChildren(cell("li", "", "No sessions.")); return; }
    list.replaceChildren(...sessions.map(row));
  }

  function tick() {  // relative times move on between lists
    for (const node of list.querySelectorAll("time.activity")) node.textContent = ago(Number(node.dataset.ms));
  }

  // New session: the user's presets (host/presets.py), offered only when the host lists them to this device
  const newSession = document.getElementById("new-session");
  const newForm = document.getElementById("new-form");
  const choices = document.getElementById("preset-choices");
  const problem = document.getElementById("new-problem");

  function choice(preset, index) {
    const label = document.createElement("label");
    label.className = "preset";
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "preset";
    radio.value = preset.name;
    radio.checked = index === 0;
    const mode = preset.permissionMode || "default";
    const parts = [radio, cell("span", "preset-name", preset.name), cell("span", "preset-cwd", preset.cwd),
      cell("span", "chip mode-" + mode, mode === "bypassPermissions" ? "bypassPermissions: no permission checks" : mode)];
    if (preset.model) parts.push(cell("span", "preset-cwd", preset.model));
    if (preset.agent) parts.push(cell("span", "preset-cwd", "agent\u00a0" + preset.agent));
    for (const part of parts) { label.appendChild(part); label.appendChild(document.createTextNode(" ")); }
    return label;
  }

  function offer(presets, problems) {
    const legend = choices.querySelector("legend");
    choices.replaceChildren(legend, ...presets.map(choice));
    newForm.hidden = presets.length === 0;
    const left = document.getElementById("preset-problems");  // a typo in the settings is said, not lost
    left.replaceChildren(...(problems || []).map(function (text) { return cell("li", "", text); }));
    newSession.hidden = presets.length === 0 && !left.children.length;
  }

  newForm.addEventListener("submit", function (event) {
    event.preventDefault();
    const picked = newForm.querySelector("input[name=preset]:checked");
    if (!picked || !socket || socket.readyState !== WebSocket.OPEN) return;
    problem.textContent = "";
    const params = {preset: picked.value};
    const prompt = document.getElementById("new-prompt").value.trim();
    if (prompt) params.prompt = prompt;
    socket.send(JSON.stringify({id: "n" + (++asked), type: "request", payload: {method: "start_preset", params: params}}));
  });

  function ask() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    asked += 1;
    socket.send(JSON.stringify({id: "l" + asked, type: "request", payload: {method: "list", params: {}}}));
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.hostname + ":" + list.dataset.wsPort + "/?k=" + pageKey);
    socket.onopen = function () {
      delay = 500;
      ask();
      socket.send(JSON.stringify({id: "p1", type: "request", payload: {method: "presets", params: {}}}));
    };
    socket.onmessage = function (event) {
      const message = JSON.parse(event.data);
      const payload = message.payload || {};
      const ident = String(message.id || "");
      if (ident === "p1") {  // a device below drive is refused: the control stays hidden
        if (message.type === "response" && Array.isArray(payload.presets)) offer(payload.presets, payload.problems);
      } else if (ident.startsWith("n")) {
        if (message.type === "response" && payload.id) location.href = "/s/" + encodeURIComponent(payload.id);
        else problem.textContent = payload.message || "Could not start the session.";
      } else if (message.type === "response" && Array.isArray(payload.sessions)) {
        show(payload.sessions);
        window.yokeListed = (window.yokeListed || 0) + 1;
      } else if (message.type === "notification" && payload.method === "session.state" && !soon) {
        soon = setTimeout(function () { soon = null; ask(); }, 250);  // a burst of changes: one list
      }
    };
    socket.onclose = function (event) {
      if (event.code === 4401) { location.reload(); return; }  // this device was revoked: pair again
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }

  window.yokeMoney = money;  // for tests
  tick();
  setInterval(function () { tick(); }, 1000);
  setInterval(ask, 10000);
  connect();
})();
