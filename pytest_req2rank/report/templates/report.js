"use strict";
// The report's only script: item filters and the item details dialog. Everything taken from
// the run is inserted with textContent, never as markup.
(function () {
  const details = JSON.parse(document.getElementById("r2r-details").textContent);
  const rows = Array.from(document.querySelectorAll("#item-table tbody tr"));
  const byId = (id) => document.getElementById(id);
  const selects = { status: byId("filter-status"), dataset: byId("filter-dataset"), skill: byId("filter-skill") };
  const text = byId("filter-text");
  const count = byId("item-count");
  const dialog = byId("detail");
  const body = byId("detail-body");

  function applyFilters() {
    const status = selects.status.value;
    const dataset = selects.dataset.value;
    const skill = selects.skill ? selects.skill.value : "";
    const query = text.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const ok = (!status || row.dataset.status === status)
        && (!dataset || row.dataset.dataset === dataset)
        && (!skill || row.dataset.skills.split("|").includes(skill))
        && (!query || row.dataset.id.toLowerCase().includes(query));
      row.hidden = !ok;
      if (ok) shown += 1;
    }
    count.textContent = shown + " of " + rows.length + " items";
  }

  function el(tag, content, className) {
    const node = document.createElement(tag);
    if (content !== undefined && content !== null) node.textContent = String(content);
    if (className) node.className = className;
    return node;
  }

  function pre(content) { return el("pre", content); }

  function pairs(entries) {
    const list = el("dl", null, "kv");
    for (const [key, value] of entries) {
      if (value === undefined || value === null || value === "") continue;
      list.append(el("dt", key), el("dd", value));
    }
    return list;
  }

  function fmt(value, digits) {
    return typeof value === "number" ? value.toFixed(digits) : "n/a";
  }

  function testBlock(test) {
    const box = el("div");
    box.append(pairs([["test", test.name], ["status", test.status], ["detail", test.detail]]));
    if (test.input !== null) { box.append(el("div", "input")); box.append(pre(test.input)); }
    if (test.expected !== null) { box.append(el("div", "expected")); box.append(pre(test.expected)); }
    if (test.actual !== null) { box.append(el("div", "actual")); box.append(pre(test.actual)); }
    return box;
  }

  function show(index) {
    const d = details[index];
    const parts = [el("h2", d.id)];
    parts.push(pairs([
      ["status", d.status + (d.reason ? " (" + d.reason + ")" : "")],
      ["score", d.score === null ? "not scored" : fmt(d.score, 1)],
      ["tests", d.tests_total ? d.tests_passed + "/" + d.tests_total + " passed" : "none ran"],
      ["dataset / task", d.dataset + " / " + d.task + (d.sample === null ? "" : " (sample " + d.sample + ")")],
      ["complexity", d.complexity], ["skills", d.skills.join(", ")],
      ["time", "generation " + fmt(d.timings.generation_s, 3) + " s, sandbox " + fmt(d.timings.execution_s, 3) + " s, total " + fmt(d.timings.total_s, 3) + " s"],
      ["tokens", d.usage.prompt_tokens === null ? null : d.usage.prompt_tokens + " in / " + d.usage.completion_tokens + " out"],
      ["cost", d.usage.cost_usd === null ? null : "$" + d.usage.cost_usd.toFixed(5)],
    ]));
    if (d.first_failed) {
      const box = el("div", null, "failed-case");
      box.append(el("h3", "First failed case"), testBlock(d.first_failed));
      parts.push(box);
    }
    if (d.requirement) {
      const r = d.requirement;
      parts.push(el("h3", "Requirement: " + r.title), pre(r.description));
      for (const item of r.requirements) {
        parts.push(pairs([[item.id + " (" + item.priority + ")", item.text], ["acceptance", item.acceptance]]));
      }
      if (r.constraints.length) parts.push(pairs(r.constraints.map((c) => ["constraint", c])));
    }
    if (d.prompt) parts.push(el("h3", "Prompt"), pre(d.prompt));
    const files = Object.entries(d.code);
    if (files.length) {
      parts.push(el("h3", "Code"));
      for (const [name, code] of files) parts.push(el("div", name), pre(code));
    } else if (d.response) {
      parts.push(el("h3", "Response (no code found)"), pre(d.response));
    }
    if (d.tests.length) {
      parts.push(el("h3", "Tests"));
      const table = el("table");
      const head = el("tr");
      for (const name of ["test", "status", "detail"]) head.append(el("th", name));
      table.append(head);
      for (const t of d.tests) {
        const row = el("tr");
        row.append(el("td", t.name), el("td", t.status), el("td", t.detail));
        table.append(row);
      }
      parts.push(table);
      if (d.tests_left_out) parts.push(el("p", d.tests_left_out + " more tests in the results JSON", "note"));
    }
    if (d.judges.length) {
      parts.push(el("h3", "Judges"));
      if (d.panel) {
        parts.push(pairs([["panel", d.panel.status + ", overall " + fmt(d.panel.overall, 1)
          + (d.panel.ci95 ? ", CI95 " + fmt(d.panel.ci95[0], 1) + "–" + fmt(d.panel.ci95[1], 1) : "")
          + (d.panel.agreement ? ", agreement " + d.panel.agreement : "")]]));
      }
      const dims = [];
      for (const v of d.judges) for (const k of Object.keys(v.scores || {})) if (!dims.includes(k)) dims.push(k);
      const table = el("table", null, "verdicts");
      const head = el("tr");
      for (const name of ["judge", "overall", ...dims, "latency", "rationale or error"]) head.append(el("th", name));
      table.append(head);
      for (const v of d.judges) {
        const row = el("tr");
        row.append(el("td", v.judge + (v.self_judging ? " (self-judging)" : "")),
          el("td", v.overall === null ? "dropped" : fmt(v.overall, 1)));
        for (const k of dims) row.append(el("td", v.scores && k in v.scores ? fmt(v.scores[k], 0) : ""));
        row.append(el("td", fmt(v.latency_s, 2) + " s"));
        const why = el("td", v.error || v.rationale);
        if (v.raw) why.append(pre(v.raw));
        row.append(why);
        table.append(row);
      }
      parts.push(table);
    }
    if (d.nversion) {
      const n = d.nversion;
      parts.push(el("h3", "N-version"), pairs([
        ["role", n.role], ["task", n.task], ["versions", n.versions], ["version", n.version],
        ["implementation", n.implementation], ["pattern", n.pattern], ["inputs voted on", n.inputs],
        ["faults", n.faults.join("\n")], ["missing", n.missing.join("\n")],
        ["diversity", n.diversity ? Object.entries(n.diversity).map(([k, s]) => k + " " + fmt(s, 3)).join(", ") : null],
      ]));
    }
    body.replaceChildren(...parts);
    dialog.showModal();
  }

  // Sorting: a header click sorts by its column, lowest first, again highest first; items
  // without a value (not scored) go last either way.
  const tbody = document.querySelector("#item-table tbody");
  for (const header of document.querySelectorAll("#item-table th.sort")) {
    header.addEventListener("click", () => {
      const key = header.dataset.sort;
      const descending = header.dataset.order === "ascending";
      for (const other of document.querySelectorAll("#item-table th.sort")) delete other.dataset.order;
      header.dataset.order = descending ? "descending" : "ascending";
      const value = (row) => (row.dataset[key] === "" ? null : Number(row.dataset[key]));
      rows.sort((a, b) => {
        const x = value(a), y = value(b);
        if (x === null || y === null) return (x === null) - (y === null);
        return descending ? y - x : x - y;
      });
      tbody.append(...rows);
    });
  }

  for (const select of Object.values(selects)) if (select) select.addEventListener("change", applyFilters);
  text.addEventListener("input", applyFilters);
  byId("filters").addEventListener("submit", (event) => event.preventDefault());
  document.querySelector("#item-table tbody").addEventListener("click", (event) => {
    const row = event.target.closest("tr");
    if (row) show(Number(row.dataset.index));
  });
  dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
})();
