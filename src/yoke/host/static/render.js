// Stream-json messages (docs/wire.md) as DOM nodes: Markdown, thinking, tool calls with their diffs and
// outputs, sub-agents nested in their Agent call. Used by the live page (app.js) and, inlined, by the file
// `/export --html` writes. Everything is built with createElement and textContent: nothing the model wrote
// is ever parsed as HTML, and no node this file makes loads anything (no <img>, no style, no src).
(function (global) {
  "use strict";
  const LONG_LINES = 20;  // outputs longer than this are collapsed
  const LONG_CHARS = 2000;
  const DIFF_CELLS = 250000;  // an exact line diff up to this many line pairs; beyond, removed then added

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // ---- Markdown (a safe subset: blocks and inlines become elements, never HTML) -------------------------
  const SAFE_URL = /^(https?:|mailto:)/i;
  const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|(!?)\[([^\]\n]*)\]\(\s*((?:[^\s()]|\([^\s()]*\))+)(?:\s+"[^"]*")?\s*\)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|~~(?=\S)([\s\S]*?\S)~~|\*(?=[^\s*])([^*]*?[^\s*]|[^\s*])\*|_(?=[^\s_])([^_]*?[^\s_]|[^\s_])_(?!\w)|<(https?:\/\/[^>\s]+)>|(https?:\/\/[^\s<>]*[^\s<>.,;:!?)\]'"])/g;

  function link(parent, text, url) {
    if (!SAFE_URL.test(url)) { parent.appendChild(document.createTextNode(text)); return; }
    const a = el("a", "", text);
    a.href = url;
    a.rel = "noopener noreferrer nofollow";
    a.target = "_blank";
    parent.appendChild(a);
  }

  function inline(parent, text) {
    let at = 0;
    let m;
    const re = new RegExp(INLINE.source, "g");
    while ((m = re.exec(text)) !== null) {
      if (m[10] !== undefined && m.index > 0 && /\w/.test(text[m.index - 1])) {  // snake_case is not emphasis
        re.lastIndex = m.index + 1;
        continue;
      }
      if (m.index > at) parent.appendChild(document.createTextNode(text.slice(at, m.index)));
      at = re.lastIndex;
      if (m[1] !== undefined) parent.appendChild(el("code", "", m[2].replace(/^ (.*) $/, "$1")));
      else if (m[4] !== undefined) link(parent, m[3] ? (m[4] || m[5]) : m[4], m[5]);  // an image: only its link
      else if (m[6] !== undefined) inline(parent.appendChild(el("strong")), m[6]);
      else if (m[7] !== undefined) inline(parent.appendChild(el("strong")), m[7]);
      else if (m[8] !== undefined) inline(parent.appendChild(el("del")), m[8]);
      else if (m[9] !== undefined) inline(parent.appendChild(el("em")), m[9]);
      else if (m[10] !== undefined) inline(parent.appendChild(el("em")), m[10]);
      else if (m[11] !== undefined) link(parent, m[11], m[11]);
      else if (m[12] !== undefined) link(parent, m[12], m[12]);
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
    return parent;
  }

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
  const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;
  const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  function cells(line) {
    return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map(function (c) { return c.trim(); });
  }

  function markdown(text) {
    const root = el("div", "md");
    blocks(root, String(text || "").replace(/\r\n?/g, "\n").split("\n"));
    return root;
  }

  function blocks(parent, lines) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (!line.trim()) { i += 1; continue; }
      if ((m = FENCE.exec(line))) {
        const fence = m[1];
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trim().startsWith(fence)) { body.push(lines[i]); i += 1; }
        i += 1;
        const pre = el("pre", "code");
        const code = el("code", m[2] ? "language-" + m[2] : "", body.join("\n"));
        if (m[2]) pre.dataset.lang = m[2];
        pre.appendChild(code);
        parent.appendChild(pre);
      } else if ((m = HEADING.exec(line))) {
        inline(parent.appendChild(el("h" + m[1].length)), m[2]);
        i += 1;
      } else if (RULE.test(line)) {
        parent.appendChild(el("hr"));
        i += 1;
      } else if (QUOTE.test(line)) {
        const inner = [];
        while (i < lines.length && (m = QUOTE.exec(lines[i]))) { inner.push(m[1]); i += 1; }
        blocks(parent.appendChild(el("blockquote")), inner);
      } else if (ITEM.test(line)) {
        i = list(parent, lines, i);
      } else if (line.indexOf("|") >= 0 && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])
                 && lines[i + 1].indexOf("-") >= 0) {
        i = table(parent, lines, i);
      } else {
        const para = [];
        while (i < lines.length && lines[i].trim() && !FENCE.test(lines[i]) && !HEADING.test(lines[i])
               && !QUOTE.test(lines[i]) && !(para.length && ITEM.test(lines[i])) && !RULE.test(lines[i])) {
          para.push(lines[i].trim());
          i += 1;
        }
        inline(parent.appendChild(el("p")), para.join("\n"));
      }
    }
  }

  function list(parent, lines, i) {
    const first = ITEM.exec(lines[i]);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const node = el(ordered ? "ol" : "ul");
    if (ordered && parseInt(first[2], 10) !== 1) node.start = parseInt(first[2], 10);
    parent.appendChild(node);
    let item = null;
    let inner = [];
    function flush() {
      if (!item) return;
      if (inner.length) blocks(item, inner);
      inner = [];
    }
    while (i < lines.length) {
      const m = ITEM.exec(lines[i]);
      if (m && m[1].length <= indent + 1 && /\d/.test(m[2]) === ordered) {
        flush();
        item = node.appendChild(el("li"));
        inline(item, m[3]);
        i += 1;
      } else if (lines[i].trim() && (/^\s/.test(lines[i]) || (m && m[1].length > indent))) {
        inner.push(lines[i].slice(Math.min(indent + 2, lines[i].search(/\S/))));  // nested: a sub-list
        i += 1;
      } else if (!lines[i].trim() && i + 1 < lines.length && /^\s+\S/.test(lines[i + 1])) {
        i += 1;
      } else break;
    }
    flush();
    return i;
  }

  function table(parent, lines, i) {
    const node = el("table", "md-table");
    const head = node.appendChild(el("thead")).appendChild(el("tr"));
    for (const c of cells(lines[i])) inline(head.appendChild(el("th")), c);
    const body = node.appendChild(el("tbody"));
    i += 2;
    while (i < lines.length && lines[i].indexOf("|") >= 0 && lines[i].trim()) {
      const row = body.appendChild(el("tr"));
      for (const c of cells(lines[i])) inline(row.appendChild(el("td")), c);
      i += 1;
    }
    const wrap = el("div", "table-wrap");
    wrap.tabIndex = 0;  // a table wider than a phone scrolls in place; a keyboard can scroll it too
    wrap.appendChild(node);
    parent.appendChild(wrap);
    return i;
  }

  // ---- Diffs --------------------------------------------------------------------------------------------
  function lineDiff(a, b) {
    // [kind, line] with kind " " (kept), "-" (removed) or "+" (added): a longest common subsequence of lines
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
    let endA = a.length, endB = b.length;
    while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA -= 1; endB -= 1; }
    const head = a.slice(0, start).map(function (l) { return [" ", l]; });
    const tail = a.slice(endA).map(function (l) { return [" ", l]; });
    const x = a.slice(start, endA), y = b.slice(start, endB);
    let middle = [];
    if (x.length * y.length > DIFF_CELLS) {
      middle = x.map(function (l) { return ["-", l]; }).concat(y.map(function (l) { return ["+", l]; }));
    } else {
      const n = x.length, m = y.length;
      const table = [];
      for (let r = 0; r <= n; r += 1) table.push(new Int32Array(m + 1));
      for (let r = n - 1; r >= 0; r -= 1) {
        for (let c = m - 1; c >= 0; c -= 1) {
          table[r][c] = x[r] === y[c] ? table[r + 1][c + 1] + 1 : Math.max(table[r + 1][c], table[r][c + 1]);
        }
      }
      let r = 0, c = 0;
      while (r < n || c < m) {
        if (r < n && c < m && x[r] === y[c]) { middle.push([" ", x[r]]); r += 1; c += 1; }
        else if (r < n && (c >= m || table[r + 1][c] >= table[r][c + 1])) { middle.push(["-", x[r]]); r += 1; }
        else { middle.push(["+", y[c]]); c += 1; }
      }
    }
    return head.concat(middle, tail);
  }

  function splitLines(text) {
    const lines = String(text || "").split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  function diffView(rows, label) {
    const box = el("div", "diff");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", label);
    for (const row of rows) {
      const tag = row[0] === "+" ? "ins" : row[0] === "-" ? "del" : "span";
      box.appendChild(el(tag, "line", row[0] + " " + row[1]));
    }
    return box;
  }

  // ---- Tool calls ---------------------------------------------------------------------------------------
  const AGENT_TOOLS = {Agent: 1, Task: 1};

  function short(value, width) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const line = String(text || "").split("\n")[0];
    return line.length > width ? line.slice(0, width - 1) + "…" : line;
  }

  const SUMMARY_KEYS = ["command", "file_path", "notebook_path", "path", "pattern", "url", "query", "description",
                        "skill", "prompt"];

  function summary(name, input) {
    if (AGENT_TOOLS[name] && input.description) {
      return input.description + (input.subagent_type ? " (" + input.subagent_type + ")" : "");
    }
    if (name === "Grep" || name === "Glob") {
      return short(input.pattern || "", 100) + (input.path ? " in " + input.path : "");
    }
    if (name === "TodoWrite" && Array.isArray(input.todos)) return input.todos.length + " todos";
    for (const key of SUMMARY_KEYS) if (typeof input[key] === "string" && input[key]) return short(input[key], 140);
    return "";
  }

  function collapsible(node, label, long) {
    if (!long) return node;
    const details = el("details", "long");
    details.appendChild(el("summary", "", label));
    details.appendChild(node);
    return details;
  }

  function toolBody(name, input) {
    // what the call does: a diff for the file edits, the content for a Write, else its input
    if (name === "Edit" && typeof input.old_string === "string") {
      return diffView(lineDiff(splitLines(input.old_string), splitLines(input.new_string)),
                      "Diff of " + (input.file_path || "the file"));
    }
    if (name === "MultiEdit" && Array.isArray(input.edits)) {
      const box = el("div", "diffs");
      for (const edit of input.edits) {
        box.appendChild(diffView(lineDiff(splitLines(edit.old_string), splitLines(edit.new_string)),
                                 "Diff of " + (input.file_path || "the file")));
      }
      return box;
    }
    if (name === "Write" && typeof input.content === "string") {
      const lines = splitLines(input.content);
      const view = diffView(lines.map(function (l) { return ["+", l]; }), "New content of " + (input.file_path || "the file"));
      return collapsible(view, lines.length + " lines", lines.length > LONG_LINES);
    }
    if (name === "Bash" && typeof input.command === "string") {
      return input.command.indexOf("\n") >= 0 ? el("pre", "tool-input", input.command) : null;
    }
    if (name === "ExitPlanMode" && typeof input.plan === "string") {
      return el("pre", "tool-input", input.plan);  // the plan as written, not as JSON
    }
    if (AGENT_TOOLS[name] && typeof input.prompt === "string") {
      return collapsible(el("pre", "tool-input", input.prompt), "Prompt", true);
    }
    const said = summary(name, input);
    const rest = {};  // what the summary line does not already show whole
    for (const key of Object.keys(input)) {
      const value = input[key];
      const shown = SUMMARY_KEYS.indexOf(key) >= 0 && typeof value === "string" && value.indexOf("\n") < 0
        && said.indexOf(value) >= 0;
      if (!shown) rest[key] = value;
    }
    const json = JSON.stringify(rest, null, 2);
    if (json === "{}") return null;
    return collapsible(el("pre", "tool-input", json), "Input", json.split("\n").length > LONG_LINES);
  }

  function resultText(content) {
    if (typeof content === "string") return content;
    return (content || []).map(function (b) {
      return b.type === "text" ? (b.text || "") : b.type === "image" ? "[image]" : "";
    }).join("\n");
  }

  // ---- A stream of messages into one container -----------------------------------------------------------
  function Stream(container) {
    this.root = container;
    this.tools = {};  // tool_use id -> its block, so results and sub-agents' messages go inside it
    this.live = {};  // container key ("" for the main agent, else the parent tool id) -> the text streaming in
  }

  Stream.prototype.where = function (message) {
    const parent = message.parent_tool_use_id;
    if (!parent) return this.root;
    const call = this.tools[parent];
    if (!call) return this.root;
    if (!call.agent) {
      call.agent = el("div", "subagent");
      call.agent.setAttribute("role", "group");
      call.agent.setAttribute("aria-label", "Sub-agent");
      call.node.insertBefore(call.agent, call.output);
    }
    return call.agent;
  };

  Stream.prototype.render = function (message) {
    const kind = message.type;
    const key = message.parent_tool_use_id || "";
    const into = this.where(message);
    if (kind === "stream_event") {
      const delta = (message.event || {}).delta || {};
      if (delta.type === "text_delta") {
        let live = this.live[key];
        if (!live) {
          live = this.live[key] = el("div", "text live");
          live.appendChild(document.createTextNode(""));
          into.appendChild(live);
        }
        live.firstChild.appendData(delta.text || "");  // no re-parse of what is there: a token costs its length
      }
      return;
    }
    if (this.live[key] && kind === "assistant") {
      // replaced by the message's own text; a message without text (cut short) leaves what streamed shown
      const blocks = (message.message || {}).content || [];
      const said = blocks.some(function (b) { return b.type === "text" && b.text; });
      if (said) this.live[key].remove();
      else this.live[key].className = "text interrupted";
      delete this.live[key];
    }
    if (this.live[key] && kind === "result") {  // no assistant line came (an interrupt): what was shown stays
      this.live[key].className = "text interrupted";
      this.live[key].title = "interrupted";
      delete this.live[key];
    }
    if (kind === "assistant") {
      for (const block of (message.message || {}).content || []) this.block(into, block);
    } else if (kind === "user") {
      const content = (message.message || {}).content;
      if (typeof content === "string") into.appendChild(el("div", "user", content));
      else for (const block of content || []) {
        if (block.type === "tool_result") this.result(into, block);
        else if (block.type === "text") into.appendChild(el("div", "user", block.text));
        else if (block.type === "image") into.appendChild(el("div", "user", "[image]"));
      }
    } else if (kind === "result") {
      into.appendChild(el("div", "turn-end", message.is_error ? "turn ended: " + (message.result || message.subtype) : "turn done"));
    } else if (kind === "system" && message.subtype === "session_ended") {
      into.appendChild(el("div", "turn-end", "session ended"));
    } else if (kind === "system" && message.subtype === "compact_boundary") {
      into.appendChild(el("div", "turn-end", "conversation compacted"));
    }
  };

  Stream.prototype.block = function (into, block) {
    if (block.type === "text") {
      const text = markdown(block.text);
      text.className = "text md";
      into.appendChild(text);
    } else if (block.type === "thinking" || block.type === "redacted_thinking") {
      const details = el("details", "thinking");
      details.appendChild(el("summary", "", block.type === "thinking" ? "Thinking" : "Thinking (redacted)"));
      if (block.thinking) details.appendChild(el("div", "thinking-text", block.thinking));
      into.appendChild(details);
    } else if (block.type === "tool_use") {
      const input = block.input || {};
      const node = el("div", "tool");
      node.dataset.tool = block.name;
      const head = node.appendChild(el("div", "tool-head"));
      head.appendChild(el("span", "tool-name", block.name));
      const said = summary(block.name, input);
      if (said) head.appendChild(el("span", "tool-summary", said));
      const body = toolBody(block.name, input);
      if (body) node.appendChild(body);
      const output = node.appendChild(el("div", "tool-output"));
      this.tools[block.id] = {node: node, output: output, agent: null};
      into.appendChild(node);
    }
  };

  // the tool block of a call, if shown (a permission card goes inside it: its diff or command shown once)
  Stream.prototype.toolNode = function (id) {
    const call = this.tools[id];
    return call ? call.node : null;
  };

  // a call a person refused: labelled "Denied" (its result then reads as the refusal, not as a failure)
  Stream.prototype.deny = function (id) {
    const call = this.tools[id];
    if (!call || call.denied) return;
    call.denied = true;
    call.node.classList.add("denied");
    call.node.querySelector(".tool-head").appendChild(el("span", "badge denied", "Denied"));
  };

  Stream.prototype.result = function (into, block) {
    const call = this.tools[block.tool_use_id];
    const text = resultText(block.content).replace(/<\/?tool_use_error>/g, "").replace(/\s+$/, "");
    const kind = call && call.denied ? "result refused" : block.is_error ? "result error" : "result";
    const pre = el("pre", kind, text || "(no output)");
    const lines = text.split("\n").length;
    const shown = collapsible(pre, "Output (" + lines + " lines)", lines > LONG_LINES || text.length > LONG_CHARS);
    (call ? call.output : into).appendChild(shown);
  };

  global.YokeRender = {
    markdown: markdown,
    lineDiff: lineDiff,
    toolBody: toolBody,
    summary: summary,
    stream: function (container) { return new Stream(container); },
  };

  // An exported file: its messages sit in a JSON script element; render them once the page is read.
  const data = document.getElementById("yoke-export");
  if (data) {
    const view = new Stream(document.getElementById("stream"));
    for (const message of JSON.parse(data.textContent)) view.render(message);
  }
})(window);
