// graphhop serve: ask a question, draw the answer's evidence graph (cytoscape + dagre, vendored).
// The drawn graph is a DAG: question (root) -> evidence -> ... -> answer. Edges into a KG fact are
// labelled with its relation; the answer's support path is highlighted. `window.cy` is the graph
// model (tests read it); `window.graphhopResult` the last /api/ask object.
"use strict";

const ANSWER_ID = "__answer__";
const $ = (id) => document.getElementById(id);
let lastResult = null;

function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }
function rel(r) { return String(r).replace(/_inverse$/, " (inverse)").replace(/_/g, " "); }

function nodeLabel(node) {
  if (node.facts && node.facts.length) {
    return node.facts.slice(0, 2).map((f) => clip(f[0], 28) + " → " + clip(f[2], 28)).join("\n");
  }
  return clip(node.text || node.id, 70);
}

function nodeText(node) {
  if (node.facts && node.facts.length) {
    return node.facts.map((f) => f[0] + " — " + rel(f[1]) + " → " + f[2]).join("; ");
  }
  return node.text || node.id;
}

// /api/ask object -> cytoscape elements (classes: question, evidence, answer, support).
function toElements(res, supportOnly) {
  const g = res.graph, sg = res.support_graph;
  const support = new Set(sg.nodes.map((n) => n.id));
  const supportEdges = new Set(sg.edges.map((e) => e[0] + "\u0000" + e[1]));
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const keep = (id) => !supportOnly || id === g.root || support.has(id);
  const els = [{ group: "nodes", classes: "question support",
    data: { id: g.root, label: "Q: " + clip(res.question, 90), text: res.question } }];
  for (const n of g.nodes) {
    if (!keep(n.id)) continue;
    els.push({ group: "nodes", classes: "evidence" + (support.has(n.id) ? " support" : ""),
      data: { id: n.id, label: nodeLabel(n), text: nodeText(n), kind: n.kind } });
  }
  for (const [u, v] of g.edges) {
    if (!keep(u) || !keep(v)) continue;
    const target = byId.get(v);
    const label = target && target.facts && target.facts.length ? rel(target.facts[0][1]) : "";
    els.push({ group: "edges", classes: supportEdges.has(u + "\u0000" + v) ? "support" : "",
      data: { id: "e:" + u + "->" + v, source: u, target: v, label: label } });
  }
  if (res.answer) {
    els.push({ group: "nodes", classes: "answer support",
      data: { id: ANSWER_ID, label: "A: " + clip(res.answer, 60), text: (res.answers || [res.answer]).join(", ") } });
    const sinks = sg.nodes.map((n) => n.id).filter((id) => !sg.edges.some((e) => e[0] === id));
    for (const s of sinks) {
      els.push({ group: "edges", classes: "support to-answer",
        data: { id: "e:" + s + "->" + ANSWER_ID, source: s, target: ANSWER_ID, label: "answer" } });
    }
  }
  return els;
}

const STYLE = [
  { selector: "node", style: { "shape": "round-rectangle", "background-color": "#f1f5f9", "border-width": 1,
    "border-color": "#94a3b8", "label": "data(label)", "font-size": 11, "color": "#1e293b", "text-wrap": "wrap",
    "text-max-width": 170, "text-valign": "center", "text-halign": "center", "width": "label", "height": "label",
    "padding": 8 } },
  { selector: "node.support", style: { "border-color": "#d97706", "border-width": 3, "background-color": "#fff7ed" } },
  { selector: "node.question", style: { "background-color": "#2563eb", "border-color": "#1d4ed8", "color": "#fff",
    "font-weight": "bold", "text-max-width": 220 } },
  { selector: "node.answer", style: { "background-color": "#16a34a", "border-color": "#15803d", "color": "#fff",
    "font-weight": "bold", "font-size": 13 } },
  { selector: "node:selected", style: { "overlay-color": "#d97706", "overlay-opacity": 0.15 } },
  { selector: "edge", style: { "curve-style": "bezier", "width": 1.2, "line-color": "#cbd5e1",
    "target-arrow-shape": "triangle", "target-arrow-color": "#cbd5e1", "arrow-scale": 0.9, "label": "data(label)",
    "font-size": 9, "color": "#475569", "text-background-color": "#fff", "text-background-opacity": 0.9,
    "text-background-padding": 1, "text-rotation": "none" } },
  { selector: "edge.support", style: { "line-color": "#d97706", "target-arrow-color": "#d97706", "width": 3,
    "color": "#9a3412", "font-weight": "bold", "z-index": 9 } },
];

// Left to right at every width: chains are short (a few hops) while fan-outs can be wide, so ranks
// as columns suit a tall phone screen too; narrow screens get tighter spacing.
function layoutOptions() {
  const wide = $("graph").clientWidth >= 720;
  return { name: "dagre", rankDir: "LR", nodeSep: wide ? 14 : 8, rankSep: wide ? 70 : 36,
    edgeSep: 6, padding: 12, animate: false, fit: true };
}

function draw(res) {
  const els = toElements(res, $("support-only").checked);
  if (window.cy) window.cy.destroy();
  const narrow = $("graph").clientWidth < 720;
  const style = narrow ? STYLE.concat([{ selector: "node", style: { "text-max-width": 120, "font-size": 10 } }]) : STYLE;
  window.cy = cytoscape({ container: $("graph"), elements: els, style: style, layout: layoutOptions(),
    wheelSensitivity: 0.3, minZoom: 0.1, maxZoom: 3 });
  const tip = document.createElement("div");
  tip.className = "tooltip";
  tip.hidden = true;
  document.body.appendChild(tip);
  window.cy.on("mouseover", "node", (ev) => { tip.textContent = ev.target.data("text"); tip.hidden = false; });
  window.cy.on("mousemove", "node", (ev) => {
    const e = ev.originalEvent; tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px";
  });
  window.cy.on("mouseout", "node", () => { tip.hidden = true; });
  window.cy.on("tap", "node", (ev) => showDetail(ev.target));
  window.cy.on("destroy", () => tip.remove());
  focusSupport();
}

// Fit the view on the support path (question -> support -> answer); "fit" shows everything.
function focusSupport() {
  const sup = window.cy.elements(".support");
  if (sup.length && sup.length < window.cy.elements().length) window.cy.fit(sup, 24);
  if (window.cy.zoom() > 1.6) { window.cy.zoom(1.6); window.cy.center(sup); }
}

function showDetail(node) {
  const d = $("detail");
  d.hidden = false;
  d.textContent = "";
  const b = document.createElement("strong");
  b.textContent = node.hasClass("question") ? "question" : node.hasClass("answer") ? "answer" : "evidence " + node.id();
  d.append(b, document.createTextNode(": " + node.data("text")));
}

function render(res) {
  lastResult = window.graphhopResult = res;
  $("result").hidden = false;
  $("answer").textContent = res.answer || "(no supported answer)";
  const others = (res.answers || []).filter((a) => a !== res.answer);
  $("score").textContent = (res.score == null ? "" : "score " + res.score.toFixed(3)) +
    (others.length ? ` · also: ${others.slice(0, 8).join(", ")}${others.length > 8 ? " …" : ""}` : "");
  const t = res.timings || {};
  const ms = t.total_s != null ? ` · ${Math.round(t.total_s * 1000)} ms` : "";
  $("meta").textContent = `${res.qtype} · ${res.method} · ${res.graph.nodes.length} evidence, ${res.support.length} in support${ms}`;
  const list = $("support-list");
  list.textContent = "";
  for (const n of res.support_graph.nodes) {
    const li = document.createElement("li");
    li.textContent = nodeText(n);
    list.appendChild(li);
  }
  $("detail").hidden = true;
  draw(res);
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

async function ask(ev) {
  if (ev) ev.preventDefault();
  const question = $("question").value.trim();
  if (!question) { setStatus("Type a question first.", true); return; }
  $("ask").disabled = true;
  setStatus("Thinking…");
  try {
    const r = await fetch("/api/ask", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question, index: $("index").value || null, method: $("method").value || null }) });
    const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (!r.ok) { setStatus("Error: " + (body.error || `HTTP ${r.status}`), true); return; }
    setStatus("");
    render(body);
  } catch (e) {
    setStatus("Error: the server did not answer (" + e.message + ")", true);
  } finally {
    $("ask").disabled = false;
  }
}

function download(name, blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 0);
}

function esc(s) { return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }

// A plain SVG of the drawn graph (positions from the layout; straight edges).
function toSVG(cy) {
  const bb = cy.elements().boundingBox(), pad = 10;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(bb.w + 2 * pad)}" height="${Math.ceil(bb.h + 2 * pad)}" viewBox="${bb.x1 - pad} ${bb.y1 - pad} ${bb.w + 2 * pad} ${bb.h + 2 * pad}" font-family="sans-serif">`,
    `<defs><marker id="arr" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#64748b"/></marker></defs>`,
    `<rect x="${bb.x1 - pad}" y="${bb.y1 - pad}" width="${bb.w + 2 * pad}" height="${bb.h + 2 * pad}" fill="#fff"/>`];
  cy.edges().forEach((e) => {
    const s = e.sourceEndpoint(), t = e.targetEndpoint(), sup = e.hasClass("support");
    parts.push(`<line x1="${s.x}" y1="${s.y}" x2="${t.x}" y2="${t.y}" stroke="${sup ? "#d97706" : "#cbd5e1"}" stroke-width="${sup ? 3 : 1.2}" marker-end="url(#arr)"/>`);
    if (e.data("label")) parts.push(`<text x="${(s.x + t.x) / 2}" y="${(s.y + t.y) / 2 - 3}" font-size="9" text-anchor="middle" fill="#475569">${esc(e.data("label"))}</text>`);
  });
  cy.nodes().forEach((n) => {
    const b = n.boundingBox({ includeLabels: false }), q = n.hasClass("question"), a = n.hasClass("answer");
    const fill = q ? "#2563eb" : a ? "#16a34a" : n.hasClass("support") ? "#fff7ed" : "#f1f5f9";
    const stroke = q || a ? fill : n.hasClass("support") ? "#d97706" : "#94a3b8";
    parts.push(`<rect x="${b.x1}" y="${b.y1}" width="${b.w}" height="${b.h}" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="${n.hasClass("support") ? 2 : 1}"/>`);
    const lines = String(n.data("label")).split("\n"), p = n.position();
    lines.forEach((line, i) => parts.push(`<text x="${p.x}" y="${p.y + (i - (lines.length - 1) / 2) * 13 + 4}" font-size="11" text-anchor="middle" fill="${q || a ? "#fff" : "#1e293b"}">${esc(line)}</text>`));
  });
  parts.push("</svg>");
  return parts.join("\n");
}

async function copyJSON() {
  const text = JSON.stringify(lastResult, null, 2);
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    const ta = document.createElement("textarea");
    ta.value = text; document.body.appendChild(ta); ta.select(); document.execCommand("copy"); ta.remove();
  }
  setStatus("Answer JSON copied.");
}

function fillSelect(sel, values, chosen) {
  sel.textContent = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = o.textContent = v;
    o.selected = v === chosen;
    sel.appendChild(o);
  }
}

function showExamples(questions) {
  const box = $("examples"), shown = 4;
  questions.forEach((q, i) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = q;
    b.hidden = i >= shown;
    b.addEventListener("click", () => { $("question").value = q; ask(); });
    box.appendChild(b);
  });
  if (questions.length > shown) {
    const more = document.createElement("button");
    more.type = "button"; more.className = "more"; more.textContent = `more examples (${questions.length - shown})`;
    more.addEventListener("click", () => { box.querySelectorAll("button[hidden]").forEach((b) => { b.hidden = false; }); more.remove(); });
    box.appendChild(more);
  }
}

async function init() {
  cytoscape.use(cytoscapeDagre);
  $("ask-form").addEventListener("submit", ask);
  $("question").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) ask(e); });
  $("support-only").addEventListener("change", () => lastResult && draw(lastResult));
  $("fit").addEventListener("click", () => window.cy && window.cy.fit(undefined, 12));
  $("copy-json").addEventListener("click", copyJSON);
  $("download-png").addEventListener("click", () => download("graphhop-evidence.png",
    window.cy.png({ output: "blob", full: true, scale: 2, bg: "#ffffff" })));
  $("download-svg").addEventListener("click", () => download("graphhop-evidence.svg",
    new Blob([toSVG(window.cy)], { type: "image/svg+xml" })));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => window.cy && window.cy.layout(layoutOptions()).run(), 200);
  });
  try {
    const h = await (await fetch("/api/health")).json();
    fillSelect($("index"), h.indexes, h.default_index);
    fillSelect($("method"), h.methods.ask, h.default_method);
    $("index").addEventListener("change", () => {  // each index offers the pipelines of its kind
      const offered = (h.pipelines || {})[$("index").value] || h.methods.ask;
      fillSelect($("method"), offered, offered.includes($("method").value) ? $("method").value : offered[0]);
    });
    $("version").textContent = h.version;
    showExamples(h.examples || []);
    document.body.dataset.ready = "1";
  } catch (e) {
    setStatus("Error: cannot reach the server (" + e.message + ")", true);
  }
}

document.addEventListener("DOMContentLoaded", init);
