// app.js: the page of `flux serve` (docs/web.md). No build step, no library:
// the graphs are Graphviz's SVG (flux graph --format svg), the timeline is
// drawn here.
'use strict';

const token = new URLSearchParams(location.search).get('token');
const state = { intent: null, versions: [], graphs: {}, executions: [], picked: -1, proofs: [], counts: {} };

function url(path, args = {}) {
  const q = new URLSearchParams(args);
  if (token) q.set('token', token);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

// JSON with its integers exact: Flux's integers have any size, and a JS
// number keeps 15 digits, so an integer of 16 digits or more (outside a
// string, not part of a float) becomes a BigInt
const BIG = '\u2063big:';
function parseJson(text) {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|(?<![\d.eE])-?\d{16,}(?![\d.eE])/g,
                              m => m[0] === '"' ? m : `"${BIG}${m}"`);
  return JSON.parse(marked, (k, v) => typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v);
}

// a value as its JSON text (BigInts exact), cut to `max` characters
function show(v, max = 160) {
  const text = JSON.stringify(v, (k, x) => typeof x === 'bigint' ? BIG + x : x)
    .replace(new RegExp(`"${BIG}(-?\\d+)"`, 'g'), '$1');
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

async function api(path, args, method = 'GET') {
  const r = await fetch(url(path, args), { method });
  const body = parseJson(await r.text());
  if (!r.ok) throw new Error(body.error ? body.error.message : r.statusText);
  return body;
}

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs = {}) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function fields(panel, pairs) {
  panel.replaceChildren();
  const dl = el('dl');
  for (const [k, v] of pairs) {
    dl.append(el('dt', {}, k));
    dl.append(el('dd', {}, typeof v === 'string' ? v : show(v)));
  }
  panel.append(dl);
}

// ---- views ----

for (const b of document.querySelectorAll('#views button')) {
  b.addEventListener('click', () => {
    for (const o of document.querySelectorAll('#views button')) o.classList.toggle('on', o === b);
    for (const v of document.querySelectorAll('.view'))
      v.classList.toggle('on', v.id === `view-${b.dataset.view}`);
    if (b.dataset.view === 'timeline') drawTimeline();
    if (b.dataset.view === 'travel') showTravel();
    if (b.dataset.view === 'profile') drawProfile();
  });
}

// ---- graph viewer: every version side by side ----

async function loadGraphs() {
  const box = document.getElementById('versions');
  box.replaceChildren();
  const { versions } = await api('/api/versions', { intent: state.intent });
  state.versions = versions;
  for (const v of versions) {
    const card = el('div', { class: 'version', 'data-version': v.version });
    const how = v.rewrite ? `${v.rewrite}, proof #${v.proof_id}` : 'the constraints, read as written';
    card.append(el('h2', {}, `${v.version}: ${how} (${v.executions} runs)`));
    box.append(card);
    try {
      const [svg, json] = await Promise.all([
        fetch(url('/api/graph', { intent: state.intent, version: v.version, format: 'svg' }))
          .then(r => r.text()),
        api('/api/graph', { intent: state.intent, version: v.version }),
      ]);
      state.graphs[v.version] = json.graph;
      const holder = el('div');
      holder.innerHTML = svg.slice(svg.indexOf('<svg'));
      card.append(holder);
      for (const g of holder.querySelectorAll('g.node'))
        g.addEventListener('click', () => pickNode(v, g));
      await colourByCounts(v, holder);
    } catch (e) {
      card.append(el('p', { class: 'hint' }, `no graph: ${e.message}`));
    }
  }
  markCurrent();
}

// what a node weighs in its version: its sampled time when the version's
// runs were sampled, else how often it ran
function weights(counts) {
  const timed = counts.some(c => c.ms > 0);
  return { by: timed ? 'time' : 'count', of: c => (timed ? c.ms : c.count) };
}

// each node's share of the version's time (or counted work), as the red of
// its box (relative to the version's hottest node)
async function colourByCounts(version, holder) {
  let counts = [];
  try {
    counts = (await api('/api/counts', { intent: state.intent, version: version.version })).node_counts.counts;
  } catch (e) { return; }
  state.counts[version.version] = counts;
  const w = weights(counts);
  const total = counts.reduce((a, c) => a + w.of(c), 0);
  if (!total) return;
  holder.dataset.shadedBy = w.by;
  const share = new Map(counts.map(c => [c.node, w.of(c) / total]));
  const most = Math.max(...share.values()); // the hottest node darkest
  for (const g of holder.querySelectorAll('g.node')) {
    const id = parseInt((g.querySelector('title') || {}).textContent.replace(/\D/g, ''), 10);
    const box = g.querySelector('polygon, ellipse');
    if (box && share.has(id))
      box.setAttribute('fill', `rgba(224, 69, 43, ${(0.08 + 0.72 * share.get(id) / most).toFixed(2)})`);
  }
}

function pickNode(version, g) {
  for (const o of document.querySelectorAll('g.node.picked')) o.classList.remove('picked');
  g.classList.add('picked');
  const id = parseInt((g.querySelector('title') || {}).textContent.replace(/\D/g, ''), 10);
  const graph = state.graphs[version.version] || { nodes: [] };
  const node = graph.nodes.find(n => n.id === id) || {};
  const o = node.origin;
  const counts = state.counts[version.version] || [];
  const c = counts.find(x => x.node === id) || { count: 0, ms: 0 };
  const sampled = counts.reduce((a, x) => a + x.ms, 0);
  fields(document.getElementById('node-panel'), [
    ['node', `%${id} ${node.op || ''} ${node.text || ''}`],
    ['type', node.type || ''],
    ['version', `${version.version} of ${state.intent}`],
    ['made by', version.rewrite ? `${version.rewrite} (proof #${version.proof_id})` : 'the constraints'],
    ['executions of this version', String(version.executions)],
    ['times this node ran', String(c.count)],
    ['time at this node', sampled ? `${c.ms.toPrecision(3)} ms sampled, ${(100 * c.ms / sampled).toFixed(1)}% of the version's` : 'not sampled yet'],
    ['origin in the source', o ? `${o.file}:${o.line}:${o.col}` : 'none (made by a rewrite)'],
  ]);
}

// the version the picked execution ran, outlined
function markCurrent() {
  const run = state.executions[state.picked];
  for (const c of document.querySelectorAll('.version'))
    c.classList.toggle('current', !!run && c.dataset.version === run.graph_version);
}

// ---- timeline: executions on a time axis, duration on a log scale ----

async function loadExecutions() {
  const all = [];
  for (let before = 0; ;) { // pages of 1000, newest first
    const args = { intent: state.intent, limit: 1000 };
    if (before) args.before = before;
    const page = await api('/api/executions', args);
    all.push(...page.executions);
    if (!page.next_before) break;
    before = page.next_before;
  }
  state.executions = all.reverse(); // oldest first
  state.picked = state.executions.length - 1;
  drawTimeline();
  // a profile drawn while they loaded showed the intent before's runs
  if (document.getElementById('view-profile').classList.contains('on')) drawProfile();
}

function drawTimeline() {
  const svg = document.getElementById('timeline');
  const w = svg.clientWidth || 800, h = svg.clientHeight || 320, pad = 40;
  svg.replaceChildren();
  const runs = state.executions;
  const scrub = document.getElementById('scrub');
  scrub.max = Math.max(0, runs.length - 1);
  scrub.value = Math.max(0, state.picked);
  if (!runs.length) return;
  const t = runs.map(r => Date.parse(r.recorded_at));
  const d = runs.map(r => Math.log10(Math.max(r.duration_ms, 1e-3)));
  const t0 = Math.min(...t), t1 = Math.max(...t) + 1, d0 = Math.min(...d), d1 = Math.max(...d) + 0.1;
  const x = v => pad + (w - 2 * pad) * (v - t0) / (t1 - t0);
  const y = v => h - pad - (h - 2 * pad) * (v - d0) / (d1 - d0);
  for (const v of state.versions) {
    const at = Date.parse(v.created_at);
    if (at < t0 || at > t1 || v.version === 'v1') continue;
    svg.append(svgEl('line', { class: v.rolled_back ? 'rollback' : 'install',
                               x1: x(at), x2: x(at), y1: pad / 2, y2: h - pad }));
    const label = svgEl('text', { class: 'axis', x: x(at) + 3, y: pad / 2 + 10 });
    label.textContent = `${v.version} installed`;
    svg.append(label);
  }
  const frag = document.createDocumentFragment();
  runs.forEach((r, i) => {
    const c = svgEl('circle', { class: i === state.picked ? 'run picked' : 'run',
                                cx: x(t[i]), cy: y(d[i]), r: 3, 'data-i': i });
    frag.append(c);
  });
  svg.append(frag);
  const axis = svgEl('text', { class: 'axis', x: 4, y: 14 });
  axis.textContent = `duration (ms, log scale): ${Math.pow(10, d0).toPrecision(2)} to ${Math.pow(10, d1).toPrecision(2)}`;
  svg.append(axis);
  showExecution();
}

document.getElementById('timeline').addEventListener('click', e => {
  if (e.target.dataset.i === undefined) return;
  state.picked = Number(e.target.dataset.i);
  drawTimeline();
});

document.getElementById('scrub').addEventListener('input', e => {
  state.picked = Number(e.target.value);
  drawTimeline();
});

function showExecution() {
  const r = state.executions[state.picked];
  if (!r) return;
  fields(document.getElementById('exec-panel'), [
    ['execution', r.execution_id],
    ['graph version', r.graph_version],
    ['input', r.input],
    ['output', r.output],
    ['duration', `${r.duration_ms.toPrecision(3)} ms`],
    ['recorded at', r.recorded_at],
    ['optimizations', r.optimizations_applied],
  ]);
  const panel = document.getElementById('exec-panel');
  panel.append(el('h3', {}, 'decision tree'));
  const ol = el('ol');
  for (const dcs of r.decision_tree || [])
    ol.append(el('li', {}, `${dcs.decision}: ${dcs.reason}` + (dcs.proof_id ? ` (proof #${dcs.proof_id})` : '')));
  panel.append(ol);
  const go = el('button', { id: 'to-travel' }, 'time travel to this execution');
  go.addEventListener('click', () => document.querySelector('#views button[data-view="travel"]').click());
  panel.append(go);
  markCurrent();
}

// ---- time travel: what the optimizer had weighed by then; a replay ----

async function showTravel() {
  const box = document.getElementById('travel');
  const r = state.executions[state.picked];
  if (!r) return;
  box.replaceChildren(el('h2', {}, `${r.execution_id}: ${r.expr} on ${r.graph_version}, ` +
                                   `${r.duration_ms.toPrecision(3)} ms, ${r.recorded_at}`));
  markCurrent();
  box.append(el('h3', {}, 'the learning round before it'));
  let round = null;
  try {
    round = (await api('/api/round', { id: r.execution_id.slice(5) })).round;
  } catch (e) {
    box.append(el('p', { class: 'hint' }, e.message));
  }
  if (state.executions[state.picked] !== r) return; // picked another meanwhile
  if (!round) {
    box.append(el('p', { class: 'hint' }, 'none: no learning round had run on this lineage yet'));
  } else {
    box.append(el('p', { id: 'round-outcome' },
                  `${round.created_at}, on ${round.version}, after exec_${round.after_execution}: ${round.outcome}`));
    const table = el('table', { id: 'round' });
    const head = el('tr');
    head.append(el('th', {}, 'rule'), el('th', {}, 'applies'), el('th', {}, 'what came of it'), el('th', {}, 'why'));
    table.append(head);
    for (const t of round.turns) {
      const tr = el('tr', { class: t.applies ? 'applies' : 'not' });
      tr.append(el('td', {}, t.rule), el('td', {}, t.applies ? 'yes' : 'no'),
                el('td', {}, t.outcome), el('td', {}, t.why || ''));
      table.append(tr);
    }
    box.append(table);
  }
  const by = Date.parse(r.recorded_at);
  const weighed = state.proofs.filter(p => p.intent === r.intent && Date.parse(p.created_at) <= by);
  box.append(el('h3', {}, 'proposals by then'));
  if (!weighed.length) box.append(el('p', { class: 'hint' }, 'none yet: the version is the naive graph'));
  const ul = el('ul', { class: 'proposals' });
  for (const p of weighed) {
    let text = `${p.rule}: ${p.status} (${p.result})`;
    if (p.reason) text += `: ${p.reason}`;
    if (p.counterexample) text += `; counterexample ${show(p.counterexample)}`;
    ul.append(el('li', {}, text));
  }
  box.append(ul);
  box.append(el('h3', {}, 'replay'));
  const pick = el('select', { id: 'replay-version' });
  for (const v of state.versions) pick.append(el('option', { value: v.version }, v.version));
  pick.value = r.graph_version;
  const go = el('button', { id: 'replay' }, 'replay on this version');
  const out = el('div', { id: 'replay-result', class: 'hint' });
  go.addEventListener('click', async () => {
    out.textContent = 'running...';
    try {
      const { replay } = await api('/api/replay', { id: r.execution_id.slice(5), version: pick.value }, 'POST');
      out.classList.remove('hint');
      out.replaceChildren(el('p', {}, `${replay.replayed_version}: ` +
        (replay.same_result ? 'the same result' : `a different result: ${show(replay.output)}`) +
        `; ${replay.path}; ${replay.ms.toPrecision(3)} ms against ${replay.recorded_ms.toPrecision(3)} ms recorded`));
      const diff = el('table', { class: 'diff' });
      const row = (k, a, b) => { const tr = el('tr'); tr.append(el('th', {}, k), el('td', {}, a), el('td', {}, b)); diff.append(tr); };
      row('', `recorded (${r.graph_version})`, `replayed (${replay.replayed_version})`);
      row('result', show(replay.recorded_output, 60), show(replay.output, 60));
      row('time', `${replay.recorded_ms.toPrecision(3)} ms`, `${replay.ms.toPrecision(3)} ms`);
      out.append(diff);
    } catch (e) {
      out.textContent = e.message;
    }
  });
  box.append(pick, go, out);
}

// ---- proof explorer ----

async function loadProofs() {
  const { proofs } = await api('/api/proofs');
  state.proofs = proofs;
  const body = document.querySelector('#proofs tbody');
  body.replaceChildren();
  for (const p of proofs) {
    const tr = el('tr', { 'data-id': p.proof_id });
    for (const v of [p.proof_id, p.intent, p.rule, p.status, p.result, p.solver,
                     p.ms === null ? '' : p.ms.toFixed(1)])
      tr.append(el('td', {}, String(v)));
    tr.addEventListener('click', async () => {
      for (const o of body.querySelectorAll('tr.picked')) o.classList.remove('picked');
      tr.classList.add('picked');
      const text = document.getElementById('proof-text');
      text.classList.remove('hint');
      try {
        const { proof } = await api('/api/proof', { id: p.proof_id });
        text.textContent = (p.counterexample ? `counterexample: ${show(p.counterexample, 4000)}\n` : '') + proof.text;
      } catch (e) {
        text.textContent = e.message;
      }
    });
    body.append(tr);
  }
}

// ---- profiler: time per node and per kernel call, per version ----

function profileTable(cls, head, rows) {
  const table = el('table', { class: cls });
  const tr = el('tr');
  for (const h of head) tr.append(el('th', {}, h));
  table.append(tr);
  for (const r of rows) {
    const row = el('tr');
    for (const c of r) row.append(typeof c === 'string' ? el('td', {}, c) : c);
    table.append(row);
  }
  return table;
}

function shareCell(part, whole) {
  const td = el('td', {}, ` ${(100 * part / whole).toFixed(1)}%`);
  const bar = el('span', { class: 'bar' });
  bar.style.width = `${(100 * part / whole).toFixed(1)}px`;
  td.prepend(bar);
  return td;
}

// the kernel calls of the recent runs, summed by kernel and node
function kernelRows(runs) {
  const sums = new Map();
  for (const r of runs) {
    const k = r.kernels;
    if (!k) continue;
    const threads = new Map(); // per call: the threads of its tasks
    for (const c of k.calls) {
      const key = `${c.kernel}|${c.intent}|${c.node}`;
      if (!threads.has(key)) threads.set(key, new Set());
      for (const t of c.tasks) threads.get(key).add(t.thread);
    }
    for (const t of k.totals) {
      const key = `${t.kernel}|${t.intent}|${t.node}`;
      const s = sums.get(key) || { kernel: t.kernel, intent: t.intent, node: t.node, calls: 0, ms: 0, threads: 0 };
      s.calls += t.calls;
      s.ms += t.ms;
      s.threads = Math.max(s.threads, (threads.get(key) || new Set()).size);
      sums.set(key, s);
    }
  }
  return [...sums.values()].sort((a, b) => b.ms - a.ms);
}

// a version's cost models (flux_cost_models): each variant's class and the
// points it was fitted on, size against time on log scales
const VARIANT_COLOURS = { loop: '#4a6fd8', power: '#e0452b' };
function modelChart(models) {
  const variants = Object.entries(models).filter(([k, m]) => m && m.fitted_on);
  const pts = variants.flatMap(([k, m]) => m.fitted_on.map(p => [k, p[0], p[1], p[2]]))
    .filter(p => p[1] > 0 && p[2] > 0);
  const box = el('div', { class: 'models' });
  box.append(el('p', {}, variants.map(([k, m]) =>
    `${k}: ~ ${m.class}, fitted on ${m.points} points up to n = ${m.max_size} (between ${m.floor} and ${m.ceiling})`).join('; ')));
  if (!pts.length) return box;
  const w = 420, h = 200, pad = 34;
  const lx = pts.map(p => Math.log10(p[1])), ly = pts.map(p => Math.log10(p[2]));
  const x0 = Math.min(...lx), x1 = Math.max(...lx) + 1e-9, y0 = Math.min(...ly), y1 = Math.max(...ly) + 1e-9;
  const X = v => pad + (w - 2 * pad) * (v - x0) / (x1 - x0), Y = v => h - pad - (h - 2 * pad) * (v - y0) / (y1 - y0);
  const svg = svgEl('svg', { class: 'model-chart', width: w, height: h, role: 'img',
                             'aria-label': 'cost model points, size against time' });
  pts.forEach((p, i) => {
    const c = svgEl('circle', { cx: X(lx[i]), cy: Y(ly[i]), r: p[3] === 'ladder' ? 2.5 : 4,
                                fill: VARIANT_COLOURS[p[0]] || '#556', 'fill-opacity': p[3] === 'ladder' ? 0.6 : 1 });
    c.append(svgEl('title'));
    c.firstChild.textContent = `${p[0]}: n = ${p[1]}, ${p[2].toPrecision(3)} ms (${p[3]})`;
    svg.append(c);
  });
  const label = (x, y, text) => { const t = svgEl('text', { class: 'axis', x, y }); t.textContent = text; svg.append(t); };
  label(pad, h - 8, `n from ${Math.pow(10, x0).toPrecision(2)} to ${Math.pow(10, x1).toPrecision(2)} (log)`);
  label(4, 12, `ms from ${Math.pow(10, y0).toPrecision(2)} to ${Math.pow(10, y1).toPrecision(2)} (log)`);
  box.append(svg);
  box.append(el('p', { class: 'hint' }, 'blue: the loop, red: the power; small: the ladder of sizes timed ' +
                                        'at install, large: recorded runs'));
  return box;
}

async function loadModels() {
  state.models = {};
  for (const v of state.versions) {
    try {
      const { cost_models: m } = await api('/api/models', { intent: state.intent, version: v.version });
      const models = m.here || m.at_install;
      if (models) state.models[v.version] = { models, here: !!m.here };
    } catch (e) { /* a version without variants */ }
  }
}

function drawProfile() {
  const box = document.getElementById('profile');
  box.replaceChildren();
  for (const v of state.versions.slice().reverse()) { // the newest, the one running, first
    const runs = state.executions.filter(r => r.graph_version === v.version);
    const ms = runs.reduce((a, r) => a + r.duration_ms, 0);
    box.append(el('h2', {}, `${v.version}: ${runs.length} runs, ${ms.toFixed(2)} ms in all` +
                            (runs.length ? `, ${(ms / runs.length).toPrecision(3)} ms a run` : '')));
    const counts = (state.counts[v.version] || []).slice();
    const w = weights(counts);
    counts.sort((a, b) => w.of(b) - w.of(a));
    const total = counts.reduce((a, c) => a + w.of(c), 0);
    const sampled = counts.reduce((a, c) => a + c.ms, 0);
    const nodes = (state.graphs[v.version] || { nodes: [] }).nodes;
    const recent = runs.slice(-1000);
    const kernels = kernelRows(recent);
    if (!total) {
      box.append(el('p', { class: 'hint' }, kernels.length && runs.length
        ? 'no node of the graph ran: the kernel calls below answered its calls' : 'no node counted yet'));
    } else {
      const shown = sampled ? counts.filter(c => c.ms > 0) : counts.slice(0, 6);
      box.append(el('p', { class: 'hint' }, sampled
        ? `time per node: ${sampled.toPrecision(3)} ms sampled in all, at the calls, loops and kernels ` +
          'where the VM samples (a call holds its callee\'s time; straight-line work counts at the next of them)'
        : 'no time sampled yet: the runs were shorter than a sample; shares by count'));
      box.append(profileTable('counts', ['node', 'time (ms)', 'ran', 'share'], shown.map(c => {
        const n = nodes.find(x => x.id === c.node) || {};
        return [`%${c.node} ${n.op || ''} ${n.text || ''}`, c.ms ? c.ms.toPrecision(3) : '', String(c.count),
                shareCell(w.of(c), total)];
      })));
      if (shown.length < counts.length)
        box.append(el('p', { class: 'hint' }, `${counts.length - shown.length} more nodes ran` +
                                             (sampled ? ', between samples' : '')));
    }
    const m = (state.models || {})[v.version];
    if (m) {
      box.append(el('h3', {}, `cost models of its variants (${m.here ? 'as measured on this machine' : 'fitted at install'})`));
      box.append(modelChart(m.models));
    }
    if (kernels.length) {
      const all = kernels.reduce((a, k) => a + k.ms, 0);
      box.append(profileTable('kernels', ['kernel call', 'calls', 'time (ms)', 'per call (ms)', 'threads', 'share'],
        kernels.map(k => [k.node ? `${k.kernel} at ${k.intent || state.intent} %${k.node}`
                                 : `${k.kernel} answering ${k.intent || state.intent}`, String(k.calls),
                          k.ms.toPrecision(3), (k.ms / k.calls).toPrecision(3), String(k.threads || 1),
                          shareCell(k.ms, all)])));
    } else if (runs.length) {
      box.append(el('p', { class: 'hint' }, `no kernel call in the last ${recent.length} runs`));
    }
  }
}

// ---- live updates ----

function live() {
  const status = document.getElementById('live');
  const events = new EventSource(url('/api/events'));
  events.addEventListener('open', () => { status.textContent = '\u25cf live'; status.classList.add('ok'); });
  events.addEventListener('error', () => { status.textContent = '\u25cf reconnecting'; status.classList.remove('ok'); });
  events.addEventListener('execution', e => {
    const run = parseJson(e.data);
    if (run.intent !== state.intent) return;
    const follow = state.picked === state.executions.length - 1;
    state.executions.push(run);
    if (follow) state.picked = state.executions.length - 1;
    drawTimeline();
    if (!state.versions.some(v => v.version === run.graph_version)) loadGraphs();
    else if (document.getElementById('view-profile').classList.contains('on')) drawProfile();
  });
}

async function selectIntent(name) {
  state.intent = name;
  delete document.body.dataset.intent;
  await loadGraphs();
  await loadModels();
  await loadExecutions();
  if (state.intent === name) document.body.dataset.intent = name; // all of it shown
}

async function main() {
  const { programs } = await api('/api/programs');
  const select = document.getElementById('intent');
  for (const p of programs)
    for (const i of p.intents) select.append(el('option', { value: i }, i));
  select.addEventListener('change', () => selectIntent(select.value));
  await loadProofs();
  if (select.value) await selectIntent(select.value);
  live();
  document.body.dataset.ready = 'yes';
}

main().catch(e => { document.body.prepend(el('p', { class: 'hint' }, `flux serve: ${e.message}`)); });
