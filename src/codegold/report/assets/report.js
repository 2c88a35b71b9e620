// Renders the case table from the embedded JSON. Untrusted text only ever reaches the
// page through textContent; state lives in the URL hash so a filtered view can be linked.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("cg-data").textContent);
  var cases = data.cases;
  var PAGE = 50;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function fillSelect(select, values) {
    values.forEach(function (v) { var o = el("option", null, v); o.value = v; select.appendChild(o); });
  }

  function readState() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { status: p.get("status") || "", cause: p.get("cause") || "", slice: p.get("slice") || "",
             q: p.get("q") || "", page: Math.max(1, parseInt(p.get("page") || "1", 10) || 1) };
  }

  function writeState(state) {
    var p = new URLSearchParams();
    ["status", "cause", "slice", "q"].forEach(function (k) { if (state[k]) p.set(k, state[k]); });
    if (state.page > 1) p.set("page", String(state.page));
    var hash = p.toString();
    if (("#" + hash) !== location.hash) { location.hash = hash; } else { render(); }
  }

  function keep(c, s) {
    if (s.status === "notpass") { if (c.status === "pass") return false; }
    else if (s.status && c.status !== s.status) return false;
    if (s.cause && c.cause !== s.cause) return false;
    if (s.slice && c.slices.indexOf(s.slice) < 0) return false;
    if (s.q) {
      var q = s.q.toLowerCase();
      if (c.id.toLowerCase().indexOf(q) < 0 && c.query.toLowerCase().indexOf(q) < 0) return false;
    }
    return true;
  }

  function kv(parent, label, value, mono) {
    if (!value) return;
    var p = el("div");
    p.appendChild(el("b", null, label + ": "));
    p.appendChild(el("span", mono ? "mono" : null, value));
    parent.appendChild(p);
  }

  function detail(c) {
    var box = el("div", "detail");
    box.appendChild(el("h4", null, "Query"));
    kv(box, "raw", c.query);
    kv(box, "rewritten", c.rewritten);
    kv(box, "filters", c.filters, true);
    kv(box, "case revision", c.revision, true);
    kv(box, "index revision", c.index_revision, true);
    kv(box, "index build", c.index_build_id, true);
    kv(box, "invalid", c.invalid_reason);
    kv(box, "rationale", c.rationale);
    box.appendChild(el("h4", null, "Accepted evidence"));
    var ul = el("ul");
    c.groups.forEach(function (g) {
      var li = el("li", null, (g.satisfied ? "\u2713 " : "\u2717 ") + g.id +
                  (g.required ? " (required): " : " (supporting): ") + g.targets.join(" | "));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    if (c.forbidden_patterns.length) kv(box, "forbidden", c.forbidden_patterns.join(", "), true);
    if (c.budget) kv(box, "budget", c.budget);
    if (c.line_figures) kv(box, "line-level", c.line_figures);
    if (c.passed_over) kv(box, "passed over", c.passed_over);
    if (c.timeline) box.appendChild(timeline(c));
    box.appendChild(el("h4", null, "Ranked evidence (" + (c.budget || ("cutoff " + c.cutoff)) + ")"));
    var t = el("table");
    var head = el("tr");
    ["rank", "file", "lines", "symbol", "role", "revision", "verdict", "excerpt"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(head);
    c.ranked.forEach(function (r) {
      var tr = el("tr", r.forbidden ? "forbidden" : (r.accepted.length ? "accepted" : (r.past_cutoff ? "past" : "")));
      tr.appendChild(el("td", "num", r.rank));
      tr.appendChild(el("td", "mono", r.file));
      tr.appendChild(el("td", "mono", r.lines));
      tr.appendChild(el("td", "mono", r.symbol));
      tr.appendChild(el("td", null, r.role));
      tr.appendChild(el("td", "mono", r.revision.slice(0, 10)));
      var marks = [];
      if (r.accepted.length) marks.push("accepted: " + r.accepted.join(", "));
      if (r.forbidden) marks.push("FORBIDDEN");
      if (r.revision_mismatch) marks.push("other revision");
      if (r.past_cutoff) marks.push("past cutoff");
      tr.appendChild(el("td", null, marks.join("; ")));
      var ex = el("td"); ex.appendChild(el("pre", "excerpt", r.excerpt)); tr.appendChild(ex);
      t.appendChild(tr);
    });
    box.appendChild(t);
    if (c.diagnosis) {
      box.appendChild(el("h4", null, "Diagnosis: " + c.cause + " (owner: " + c.owner + ")"));
      if (c.diagnosis.summary) box.appendChild(el("p", null, c.diagnosis.summary));
      var ev = el("ul");
      c.diagnosis.evidence.forEach(function (e) { ev.appendChild(el("li", null, e)); });
      box.appendChild(ev);
      if (c.diagnosis.checks_not_run.length) {
        box.appendChild(el("div", "muted", "Checks that could not run: " + c.diagnosis.checks_not_run.join("; ")));
      }
      if (c.diagnosis.bundle) {
        var d = el("details"); d.appendChild(el("summary", null, "Evidence bundle"));
        d.appendChild(el("pre", "bundle", c.diagnosis.bundle)); box.appendChild(d);
      }
    }
    return box;
  }

  // An agent's trajectory, step by step: what was searched and read, the budget line,
  // where each required group was first satisfied, forbidden reads in red.
  function timeline(c) {
    var wrap = el("div", "timeline");
    wrap.appendChild(el("h4", null, "Timeline (" + (c.budget || ("cutoff " + c.cutoff)) + ")"));
    var ol = el("ol", "tl");
    var step = null, budgetDrawn = false;
    c.timeline.forEach(function (r) {
      if (r.past_budget && !budgetDrawn) {
        ol.appendChild(el("li", "tl-budget", "\u2500\u2500 budget reached: the model saw nothing below \u2500\u2500"));
        budgetDrawn = true;
      }
      if (r.step !== step) {
        ol.appendChild(el("li", "tl-step", r.step === null ? "step ?" : "step " + r.step));
        step = r.step;
      }
      var cls = "tl-entry" + (r.forbidden ? " forbidden" : (r.accepted.length ? " accepted" : "")) +
                (r.past_budget ? " past" : "");
      var li = el("li", cls);
      var what = r.kind === "search_hit" ? "search" : (r.kind === "read" ? "read" : "context");
      li.appendChild(el("span", "tl-kind", what));
      if (r.tool) li.appendChild(el("span", "tl-tool muted", r.tool));
      li.appendChild(el("span", "mono", r.file + (r.lines ? ":" + r.lines : "")));
      if (r.symbol || r.role) {
        li.appendChild(el("span", "tl-tool muted", [r.symbol, r.role].filter(Boolean).join(", ")));
      }
      var marks = [];
      if (r.forbidden) marks.push("FORBIDDEN");
      if (r.accepted.length) marks.push("accepted: " + r.accepted.join(", "));
      if (r.outside_repo) marks.push("outside the repository");
      if (r.cut) marks.push("cut at the budget");
      if (marks.length) li.appendChild(el("span", "tl-marks", marks.join("; ")));
      r.satisfied.forEach(function (g) { li.appendChild(el("span", "tl-sat", "\u2713 " + g + " satisfied")); });
      ol.appendChild(li);
    });
    wrap.appendChild(ol);
    return wrap;
  }

  function rankText(c) {
    if (c.rank !== null) return String(c.rank);
    if (c.rank_any_depth !== null) return c.rank_any_depth + " (past " + c.cutoff + ")";
    return "none";
  }

  function render() {
    var s = readState();
    $("f-status").value = s.status; $("f-cause").value = s.cause; $("f-slice").value = s.slice;
    if (document.activeElement !== $("f-q")) $("f-q").value = s.q;
    var shown = cases.filter(function (c) { return keep(c, s); });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    var page = Math.min(s.page, pages);
    $("f-count").textContent = shown.length + " of " + cases.length + " cases";
    $("f-page").textContent = "page " + page + " of " + pages;
    var body = $("case-body");
    body.textContent = "";
    shown.slice((page - 1) * PAGE, page * PAGE).forEach(function (c) {
      var tr = el("tr", "case-row");
      tr.setAttribute("data-case", c.id);
      tr.appendChild(el("td", "mono", c.id));
      var st = el("td"); st.appendChild(el("span", "badge s-" + c.status, c.status)); tr.appendChild(st);
      tr.appendChild(el("td", "num", rankText(c)));
      tr.appendChild(el("td", null, c.cause));
      tr.appendChild(el("td", null, c.owner));
      tr.appendChild(el("td", "query", c.query.length > 140 ? c.query.slice(0, 140) + " \u2026" : c.query));
      tr.addEventListener("click", function () {
        var next = tr.nextSibling;
        if (next && next.className === "detail") { body.removeChild(next); return; }
        var row = el("tr", "detail"); var td = el("td"); td.colSpan = 6;
        td.appendChild(detail(c)); row.appendChild(td); body.insertBefore(row, tr.nextSibling);
      });
      body.appendChild(tr);
    });
    $("f-prev").disabled = page <= 1; $("f-next").disabled = page >= pages;
    if (shown.length === 1 && s.q) { var only = body.querySelector("tr.case-row"); if (only) only.click(); }
  }

  fillSelect($("f-status"), data.statuses);
  fillSelect($("f-cause"), data.causes);
  fillSelect($("f-slice"), data.slices);
  function change(patch) { var s = readState(); Object.keys(patch).forEach(function (k) { s[k] = patch[k]; }); s.page = patch.page || 1; writeState(s); }
  $("f-status").addEventListener("change", function (e) { change({ status: e.target.value }); });
  $("f-cause").addEventListener("change", function (e) { change({ cause: e.target.value }); });
  $("f-slice").addEventListener("change", function (e) { change({ slice: e.target.value }); });
  $("f-q").addEventListener("input", function (e) { change({ q: e.target.value }); });
  $("f-prev").addEventListener("click", function () { var s = readState(); change({ page: Math.max(1, s.page - 1) }); });
  $("f-next").addEventListener("click", function () { var s = readState(); change({ page: s.page + 1 }); });
  window.addEventListener("hashchange", render);
  render();
  document.body.setAttribute("data-ready", "1");
})();
