// A session's waiting `can_use_tool` prompts, as the page shows them (docs/remote.md): a permission prompt
// (Allow / Allow for this session / Deny with feedback), AskUserQuestion (its questions as radio buttons or checkboxes, "Other",
// Send answers / Deny) and ExitPlanMode (the plan as Markdown, Allow / Deny with feedback). The answers are
// the Agent SDK's `can_use_tool` answers; app.js sends them with the host's `answer`.
(function (global) {
  "use strict";

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(text, cls, onclick) {
    const node = el("button", cls, text);
    node.type = "button";
    node.onclick = onclick;
    return node;
  }

  // Deny with feedback: the text goes to the model as the tool's result, so it can change course
  function denyControls(box, answer) {
    const row = el("div", "deny-row");
    const feedback = el("input", "feedback");
    feedback.setAttribute("aria-label", "Feedback");
    feedback.placeholder = "Feedback (optional)";
    feedback.enterKeyHint = "send";
    const deny = button("Deny", "deny", function () {
      answer({behavior: "deny", message: feedback.value.trim() || "Denied from the remote page."});
    });
    feedback.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.isComposing) { event.preventDefault(); deny.click(); }
    });
    row.appendChild(feedback);
    row.appendChild(deny);
    box.appendChild(row);
  }

  // One question: a group named by the question, one input per option named by its label, and "Other"
  // (the user may always answer in their own words). Returns a function giving the answer, or "" if none.
  function question(box, q, index, prefix, readOnly) {
    const group = el("fieldset", "question");
    group.appendChild(el("legend", "", (q.header ? q.header + ": " : "") + (q.question || "")));
    box.appendChild(group);
    const options = Array.isArray(q.options) ? q.options : [];
    if (readOnly) {
      const list = group.appendChild(el("ul", "options"));
      for (const o of options) list.appendChild(el("li", "", o.label + (o.description ? " — " + o.description : "")));
      return null;
    }
    const kind = q.multiSelect ? "checkbox" : "radio";
    const inputs = options.map(function (o, n) {
      const row = group.appendChild(el("div", "option"));
      const input = el("input");
      input.type = kind;
      input.name = prefix + "-q" + index;
      input.id = prefix + "-q" + index + "-o" + n;
      input.value = String(o.label);
      const label = el("label", "", String(o.label));
      label.htmlFor = input.id;
      row.appendChild(input);
      row.appendChild(label);
      if (o.description) {
        const about = row.appendChild(el("span", "option-description", o.description));
        about.id = input.id + "-d";
        input.setAttribute("aria-describedby", about.id);
      }
      return input;
    });
    const other = el("input", "other");
    other.setAttribute("aria-label", "Other");
    other.placeholder = "Other (your own answer)";
    group.appendChild(other);
    if (kind === "radio") {  // typing an answer of one's own replaces the option chosen, and back
      other.oninput = function () { if (other.value.trim()) for (const i of inputs) i.checked = false; };
      for (const i of inputs) i.addEventListener("change", function () { other.value = ""; });
    }
    return function () {
      const chosen = inputs.filter(function (i) { return i.checked; }).map(function (i) { return i.value; });
      if (other.value.trim()) chosen.push(other.value.trim());
      return chosen.join(", ");  // several labels comma-joined, as the tool's result gives them
    };
  }

  function askUserQuestion(box, request, answer, readOnly, prefix) {
    const input = request.input || {};
    const questions = Array.isArray(input.questions) ? input.questions : [];
    box.appendChild(el("div", "ask-title", questions.length > 1 ? "Questions" : "Question"));
    const answers = questions.map(function (q, n) { return question(box, q, n, prefix, readOnly); });
    if (readOnly) return;
    const problem = el("div", "ask-problem");
    problem.setAttribute("role", "status");
    const actions = el("div", "actions");
    actions.appendChild(button("Send answers", "allow", function () {
      const given = {};
      for (let n = 0; n < questions.length; n++) {
        const text = answers[n]();
        if (!text) { problem.textContent = "Answer every question (or Deny)."; return; }
        given[String(questions[n].question)] = text;
      }
      answer({behavior: "allow", updatedInput: Object.assign({}, input, {answers: given})});
    }));
    box.appendChild(problem);
    box.appendChild(actions);
    denyControls(actions, answer);
  }

  function exitPlanMode(box, request, answer, readOnly) {
    const input = request.input || {};
    box.appendChild(el("div", "ask-title", "Approve this plan?"));
    const plan = box.appendChild(el("div", "plan"));
    if (input.plan) plan.appendChild(global.YokeRender.markdown(String(input.plan)));
    else plan.textContent = "(the plan is in the session's plan file)";
    if (readOnly) return;
    // the mode to go on in once approved: as the terminal asks, edits asked about or accepted
    const after = el("select", "after-plan");
    after.setAttribute("aria-label", "Mode after the plan");
    for (const [value, text] of [["default", "then ask before edits"], ["acceptEdits", "then accept edits"]]) {
      after.appendChild(el("option", "", text)).value = value;
    }
    const actions = box.appendChild(el("div", "actions"));
    actions.appendChild(button("Allow", "allow", function () {
      const setMode = {type: "setMode", mode: after.value, destination: "session"};
      answer({behavior: "allow", updatedInput: input, updatedPermissions: [setMode]});
    }));
    actions.appendChild(after);
    denyControls(actions, answer);
  }

  // A permission card: what the call does, once (inside the call's block in the stream when it is shown,
  // where its diff or command already is; else drawn here), then Allow, Allow for this session, Deny.
  function permission(box, request, answer, readOnly, inStream) {
    const input = request.input || {};
    const render = global.YokeRender;
    box.appendChild(el("div", "ask-title", "Allow " + request.tool_name + "?"));
    const said = render.summary(request.tool_name, input);
    const whole = typeof input.command === "string" && said !== input.command;  // a long command, cut short
    if (!inStream && said && !whole) box.appendChild(el("div", "ask-summary", said));
    if (whole) box.appendChild(el("pre", "ask-input", input.command));
    else if (!inStream) {
      const body = render.toolBody(request.tool_name, input);
      if (body) box.appendChild(body);
    }
    if (request.decision_reason) box.appendChild(el("div", "ask-reason", String(request.decision_reason)));
    if (readOnly) return;
    const actions = box.appendChild(el("div", "actions"));
    actions.appendChild(button("Allow", "allow", function () { answer({behavior: "allow"}); }));
    // as the terminal's "Yes, allow for this session": the session adds the narrow rules for this call
    actions.appendChild(button("Allow for this session", "allow-session", function () {
      answer({behavior: "allow", remember: "session"});
    }));
    denyControls(actions, answer);
  }

  // Fill `box` for one `can_use_tool` request; `answer(response)` sends the Agent SDK's answer.
  // `inStream`: the call's block is shown, the card inside it (its diff or command is there already).
  function fill(box, request, answer, readOnly, inStream) {
    if (request.tool_name === "AskUserQuestion") askUserQuestion(box, request, answer, readOnly, box.id);
    else if (request.tool_name === "ExitPlanMode") exitPlanMode(box, request, answer, readOnly);
    else permission(box, request, answer, readOnly, inStream);
  }

  global.YokePrompts = {fill: fill};
})(window);
