// @ts-check
// The analysis board (/analysis): set up a position (paste a GPN or edit
// the board), see the engine's evaluation stream in as it deepens, the
// value of every legal action (exact ones from the solved database), play
// moves into a tree of variations, and share a link to the same position
// and line. The server judges every position (POST /api/analysis/position)
// and runs every search (the socket /api/analysis/ws): the page only draws.
// Link contract: /analysis?rules=…&gpn=…&line=a1+b2…&ply=n.

import { h, linkField, copyButton, announce } from './dom.js';
import { actionWords, t, tn } from './i18n.js';
import { call } from './api.js';
import { Board } from './board.js';
import { HOLES, parseGpn } from './gpn.js';
import { errorText } from './errors.js';

/** Rule presets of the editor's select (seeds per hole chosen apart). */
const PRESETS = ['standard', 'no-trades', 'skip-origin', 'no-trades,skip-origin', 'cede-all'];
const START_GPN = '6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -';

/**
 * @typedef {{action: string|null, gpn: string, parent: TreeNode|null, children: TreeNode[],
 *   legal: string[]|null, over: {seeds: number[], reason: string}|null}} TreeNode
 * @typedef {{v: number[], lo: number[], hi: number[], exact: boolean}} ExactV
 * @typedef {{id: number, depth: number, expected: number[]|null, line: string[], nodes: number,
 *   timeMs: number, actions: Record<string, {expected: number[], depth: number, ends: boolean}>,
 *   exact: {position: ExactV, actions: Record<string, ExactV>}|null, done: boolean, stopped: boolean,
 *   queued: number|null}} Eval
 */

/** @param {string} rules @returns {{preset: string, seeds: number}} */
function splitRules(rules) {
  const opts = String(rules || 'standard').split(',').map((s) => s.trim()).filter(Boolean);
  let seeds = 6;
  const rest = [];
  for (const o of opts) {
    if (o.startsWith('seeds=')) seeds = Number(o.slice(6)) || 6;
    else if (o !== 'standard') rest.push(o);
  }
  const key = rest.slice().sort().join(',');
  const preset = PRESETS.find((p) => p.split(',').sort().join(',') === key) || (rest.length ? rest.join(',') : 'standard');
  return { preset, seeds };
}

/** @param {string} preset @param {number} seeds */
function joinRules(preset, seeds) {
  const opts = preset === 'standard' ? [] : preset.split(',');
  if (seeds !== 6) opts.push(`seeds=${seeds}`);
  return opts.length ? opts.join(',') : 'standard';
}

/** A start GPN for `seeds` per hole. @param {number} seeds */
const startGpn = (seeds) => `${[seeds, seeds, seeds, seeds].join(',')}/${[seeds, seeds, seeds, seeds].join(',')} AAAA/BBBB 0-0 A -`;

/** Seeds with at most one decimal. @param {number} x */
const fmt = (x) => (Math.round(x * 10) / 10).toString();

/** @param {number[]} s */
const pair = (s) => t('analysis.pair', { a: fmt(s[0]), b: fmt(s[1]) });

/** The actions from the root to `n`. @param {TreeNode} n */
function pathOf(n) {
  /** @type {string[]} */
  const out = [];
  for (let x = /** @type {TreeNode|null} */ (n); x && x.action; x = x.parent) out.unshift(x.action);
  return out;
}

/** @param {TreeNode|null} parent @param {string|null} action @param {string} gpn @returns {TreeNode} */
const node = (parent, action, gpn) => ({ action, gpn, parent, children: [], legal: null, over: null });

/**
 * @param {HTMLElement} main
 */
export function analysisPage(main) {
  const q = new URLSearchParams(location.search);
  const st = {
    rules: q.get('rules') || 'standard',
    /** The tree's root position. */
    start: q.get('gpn') || '',
    /** @type {TreeNode} */
    root: node(null, null, q.get('gpn') || START_GPN),
    /** @type {TreeNode} */
    cur: node(null, null, START_GPN),
    /** @type {string} */
    setupError: '',
    /** The editor's working GPN (the GPN field). */
    draft: q.get('gpn') || START_GPN,
    /** @type {Eval|null} */
    ev: null,
    /** Analyse each position shown. */
    on: true,
    /** An analysis was asked for and has not started (1) or not (0). */
    pending: 0,
    /** @type {string} */
    wsError: '',
  };
  st.cur = st.root;
  /** @type {WebSocket|null} */
  let ws = null;
  let gone = false;
  /** Automatic retries after `busy` since the last start (each waits longer). */
  let retries = 0;
  const board = new Board({ interactive: true, onHole: (hole) => play(hole), label: t('analysis.boardLabel') });
  const el = {
    status: h('p', { id: 'an-status', class: 'muted', role: 'status' }),
    error: h('p', { id: 'an-error', class: 'an-error', role: 'alert' }),
    evalBox: h('section', { id: 'an-eval', class: 'card an-eval', 'aria-labelledby': 'an-eval-h' }),
    actions: h('section', { id: 'an-actions', class: 'card an-actions', 'aria-labelledby': 'an-actions-h' }),
    tree: h('section', { id: 'an-tree', class: 'card an-tree', 'aria-labelledby': 'an-tree-h' }),
    editor: h('section', { id: 'an-editor', class: 'card an-editor', 'aria-labelledby': 'an-editor-h' }),
    share: h('section', { id: 'an-share', class: 'card an-share', 'aria-labelledby': 'an-share-h' }),
  };

  // ---- The socket ----
  function connect() {
    if (gone || (ws && ws.readyState <= 1)) return;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const sock = new WebSocket(`${proto}://${location.host}/api/analysis/ws`);
    ws = sock;
    sock.onmessage = (m) => onMessage(JSON.parse(String(m.data)));
    sock.onclose = () => {
      if (ws === sock) ws = null;
      st.pending = 0;
      if (st.ev && !st.ev.done) { st.ev.done = true; st.ev.stopped = true; drawEval(); }
    };
  }

  /** A message to the server (`analyse`). @param {{type: string} & Record<string, unknown>} msg */
  function send(msg) {
    connect();
    const s = /** @type {WebSocket} */ (ws);
    if (s.readyState === 1) s.send(JSON.stringify(msg));
    else s.addEventListener('open', () => s.send(JSON.stringify(msg)), { once: true });
  }

  /** @param {import('./wire.js').AnalysisMsg} m */
  function onMessage(m) {
    if (m.type === 'started') {
      // An analysis of another position (asked for before a later one,
      // which replaced it) is not this node's.
      if (st.cur.over || m.gpn !== st.cur.gpn) { st.ev = null; return; }
      st.pending = 0;
      st.wsError = '';
      retries = 0;
      drawStatus();
      st.ev = { id: m.id, depth: 0, expected: null, line: [], nodes: 0, timeMs: 0, actions: {}, exact: null, done: false, stopped: false, queued: null };
    } else if (m.type === 'error') {
      st.pending = 0;
      const busy = m.error && m.error.code === 'busy';
      // Busy (the analysis engine's queue is full, or this visitor has
      // many tabs analysing): say what is busy and try again by itself,
      // less and less often, while the person still wants an analysis.
      st.wsError = busy ? t('analysis.busyRetry') : errorText(m.error);
      drawStatus();
      if (busy && st.on) {
        retries += 1;
        const at = st.cur;
        setTimeout(() => { if (!gone && st.on && st.cur === at && !st.ev) analyse(); }, Math.min(2000 * retries, 10000));
      }
    } else if (!st.ev || /** @type {{id?: number}} */ (m).id !== st.ev.id) {
      return; // A finding of an analysis replaced since.
    } else if (m.type === 'queued') {
      // Waiting for the server's analysis thread: its place in the line.
      st.ev.queued = m.place;
    } else if (m.type === 'depth') {
      st.ev.queued = null;
      Object.assign(st.ev, { depth: m.depth, expected: m.expected, line: m.line, nodes: m.nodes, timeMs: m.time_ms });
    } else if (m.type === 'action') {
      st.ev.queued = null;
      st.ev.actions[m.action] = { expected: m.expected, depth: m.depth, ends: m.ends };
    } else if (m.type === 'exact') {
      /** @type {Record<string, ExactV>} */
      const acts = {};
      for (const a of m.actions) acts[a.action] = a;
      st.ev.exact = { position: m.position, actions: acts };
    } else if (m.type === 'done') {
      st.ev.queued = null;
      st.ev.done = true;
      st.ev.stopped = m.stopped;
      st.ev.nodes = m.nodes;
    }
    drawEval();
    drawActions();
  }

  function analyse() {
    if (st.cur.over) { st.ev = null; return; }
    st.pending = 1;
    st.wsError = '';
    st.ev = null;
    send({ type: 'analyse', rules: st.rules, gpn: st.root.gpn, line: pathOf(st.cur).join(' ') });
  }

  function stop() {
    st.on = false;
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: 'stop' }));
    drawEval();
  }

  // ---- Positions (the server judges) ----
  /** Requests in flight, on the page for whoever waits for it to settle (the tests). */
  let busy = 0;
  /**
   * Asks the server to judge a setup.
   * @param {{rules?: string, gpn?: string, line?: string}} body
   * @returns {Promise<import('./wire.js').AnalysisPosition>}
   */
  async function ask(body) {
    busy += 1;
    main.dataset.busy = String(busy);
    try {
      return await call('POST', '/api/analysis/position', body);
    } finally {
      busy -= 1;
      // Set after the caller's drawing (a microtask later), so "0" means settled.
      queueMicrotask(() => { main.dataset.busy = String(busy); });
    }
  }

  /** Fetches what the rules say of the current node, then analyses it. */
  async function judge() {
    const n = st.cur;
    if (!n.legal) {
      try {
        const r = await ask({ rules: st.rules, gpn: st.root.gpn, line: pathOf(n).join(' ') });
        n.legal = r.legal;
        n.over = r.over;
      } catch (e) {
        st.setupError = errorText(/** @type {import('./api.js').ApiError} */ (e));
        n.legal = [];
      }
    }
    if (n !== st.cur) return;
    drawAll();
    if (st.on) analyse();
  }

  /** Plays an action from the current node (or goes to the child that has it). @param {string} action */
  async function play(action) {
    const from = st.cur;
    if (!from.legal || !from.legal.includes(action)) return;
    let child = from.children.find((c) => c.action === action);
    if (!child) {
      try {
        const r = await ask({ rules: st.rules, gpn: st.root.gpn, line: [...pathOf(from), action].join(' ') });
        child = node(from, action, r.gpn);
        child.legal = r.legal;
        child.over = r.over;
        from.children.push(child);
      } catch (e) {
        st.setupError = errorText(/** @type {import('./api.js').ApiError} */ (e));
        drawAll();
        return;
      }
    }
    go(child);
    announce(action);
  }

  /** @param {TreeNode} n */
  function go(n) {
    st.cur = n;
    st.setupError = '';
    syncUrl();
    judge();
  }

  /** Sets a new root position (from the GPN field or the editor); the tree starts again. @param {string} gpn @param {string} rules */
  async function setPosition(gpn, rules) {
    try {
      const r = await ask({ rules, gpn });
      st.rules = r.rules;
      st.root = node(null, null, r.start);
      st.root.legal = r.legal;
      st.root.over = r.over;
      st.draft = r.start;
      st.setupError = '';
      st.ev = null;
      go(st.root);
    } catch (e) {
      st.setupError = errorText(/** @type {import('./api.js').ApiError} */ (e));
      drawEditor();
      drawStatus();
    }
  }

  // ---- The link ----
  function shareUrl() {
    // The line: the path to the current node, then its main continuation.
    let end = st.cur;
    while (end.children.length) end = end.children[0];
    const p = new URLSearchParams();
    p.set('rules', st.rules);
    p.set('gpn', st.root.gpn);
    const line = pathOf(end);
    if (line.length) p.set('line', line.join(' '));
    const ply = pathOf(st.cur).length;
    if (ply !== line.length) p.set('ply', String(ply));
    return `${location.origin}/analysis?${p}`;
  }

  function syncUrl() {
    try { history.replaceState(history.state, '', shareUrl().slice(location.origin.length)); } catch (_) { /* not allowed: fine */ }
  }

  // ---- Drawing ----
  function drawStatus() {
    const n = st.cur;
    el.status.textContent = n.over
      ? t('analysis.over', { a: n.over.seeds[0], b: n.over.seeds[1] })
      : t('analysis.toMove', { player: parseGpn(n.gpn).toMove });
    el.error.textContent = st.setupError || st.wsError;
  }

  function drawBoard() {
    const n = st.cur;
    const legal = (n.legal || []).filter((a) => HOLES.includes(a));
    let pos;
    try { pos = parseGpn(n.gpn); } catch (_) { return; }
    board.setBottom('A');
    board.render(pos, { legal, origin: n.action && HOLES.includes(n.action) ? n.action : null });
  }

  function drawEval() {
    const ev = st.ev;
    const box = el.evalBox;
    box.textContent = '';
    box.append(h('h2', { id: 'an-eval-h' }, t('analysis.evaluation')));
    const running = !!ev && !ev.done;
    box.append(h('div', { class: 'an-buttons' },
      h('button', { type: 'button', id: 'an-start', class: 'primary small', disabled: running || !!st.cur.over, onclick: () => { st.on = true; analyse(); drawEval(); } }, t('analysis.start')),
      h('button', { type: 'button', id: 'an-stop', class: 'small', disabled: !running, onclick: stop }, t('analysis.stop'))));
    if (st.cur.over) {
      box.append(h('p', { id: 'an-value' }, t('analysis.over', { a: st.cur.over.seeds[0], b: st.cur.over.seeds[1] })));
      return;
    }
    if (ev && ev.exact) {
      const x = ev.exact.position;
      box.append(h('p', { id: 'an-exact', class: 'an-exact' },
        h('strong', {}, t(x.exact ? 'analysis.exact' : 'analysis.bounded')), ' ', pair(x.v),
        x.exact ? null : h('span', { class: 'muted' }, ' ', t('analysis.interval', { lo: pair(x.lo), hi: pair(x.hi) }))));
    }
    if (!ev) {
      box.append(h('p', { class: 'muted', id: 'an-idle' }, st.pending ? t('analysis.waiting') : t('analysis.idle')));
      return;
    }
    box.append(h('dl', { class: 'an-facts' },
      h('dt', {}, t('analysis.expected')), h('dd', { id: 'an-expected' }, ev.expected ? pair(ev.expected) : '…'),
      h('dt', {}, t('analysis.depth')), h('dd', { id: 'an-depth' }, String(ev.depth)),
      h('dt', {}, t('analysis.bestLine')), h('dd', { id: 'an-line', class: 'an-line' }, ev.line.map(actionWords).join(' · ') || '…'),
      h('dt', {}, t('analysis.nodes')), h('dd', { id: 'an-nodes' }, ev.nodes.toLocaleString())));
    const queued = ev.queued === 0 ? t('analysis.queuedNext') : ev.queued ? tn('analysis.queued', ev.queued) : '';
    box.append(h('p', { class: 'muted', id: 'an-state' }, ev.done ? t(ev.stopped ? 'analysis.stopped' : 'analysis.done') : queued || t('analysis.running')));
  }

  function drawActions() {
    const box = el.actions;
    box.textContent = '';
    box.append(h('h2', { id: 'an-actions-h' }, t('analysis.actions')));
    const legal = st.cur.legal || [];
    if (!legal.length) { box.append(h('p', { class: 'muted' }, t('analysis.noAction'))); return; }
    const ev = st.ev;
    const list = h('ul', { class: 'an-action-list' });
    // The evaluation's best action (its line's first), marked so in the list.
    const best = ev && !(ev.exact) && ev.depth > 0 ? ev.line[0] : undefined;
    for (const a of legal) {
      const x = ev && ev.exact && ev.exact.actions[a];
      const s = ev && ev.actions[a];
      // Not valued yet: "…" while the search goes on; once it is over, the
      // budget ran out before this action: said so, never a guess as a value.
      let value = /** @type {Node|string} */ (ev && ev.done ? h('span', { class: 'muted an-unsearched' }, t('analysis.notSearched')) : '…');
      if (x) {
        value = h('span', {}, pair(x.v), ' ', h('span', { class: 'an-badge' }, t(x.exact ? 'analysis.exactMark' : 'analysis.boundedMark')),
          x.exact ? null : h('span', { class: 'muted' }, ' ', t('analysis.interval', { lo: pair(x.lo), hi: pair(x.hi) })));
      } else if (s) {
        value = h('span', {}, pair(s.expected), ' ', h('span', { class: 'muted' }, s.ends ? t('analysis.ends') : t('analysis.atDepth', { depth: s.depth })),
          a === best ? ' ' : null, a === best ? h('span', { class: 'an-badge an-best' }, t('analysis.bestMark')) : null);
      }
      list.append(h('li', {},
        h('button', { type: 'button', class: 'small an-play', 'data-action': a, onclick: () => play(a) }, actionWords(a)),
        ' ', h('span', { class: 'an-value', 'data-value-of': a }, value)));
    }
    box.append(list);
  }

  function drawTree() {
    const box = el.tree;
    box.textContent = '';
    box.append(h('h2', { id: 'an-tree-h' }, t('analysis.moves')));
    const nav = h('div', { class: 'an-buttons' },
      h('button', { type: 'button', class: 'small', id: 'an-first', 'aria-label': t('analysis.first'), disabled: !st.cur.parent, onclick: () => go(st.root) }, '«'),
      h('button', { type: 'button', class: 'small', id: 'an-back', 'aria-label': t('analysis.back'), disabled: !st.cur.parent, onclick: back }, '‹'),
      h('button', { type: 'button', class: 'small', id: 'an-forward', 'aria-label': t('analysis.forward'), disabled: !st.cur.children.length, onclick: forward }, '›'),
      h('button', { type: 'button', class: 'small', id: 'an-last', 'aria-label': t('analysis.last'), disabled: !st.cur.children.length, onclick: last }, '»'));
    box.append(nav);
    const line = h('p', { class: 'an-moves', id: 'an-moves' });
    /** @param {TreeNode} n @param {number} ply */
    const moveBtn = (n, ply) => h('button', {
      type: 'button', class: `an-move${n === st.cur ? ' current' : ''}`, 'aria-current': n === st.cur ? 'true' : null,
      'data-ply': ply, onclick: () => go(n),
    }, `${ply}. ${actionWords(n.action || '')}`);
    /** @param {TreeNode} from @param {number} ply @param {HTMLElement} into */
    const walk = (from, ply, into) => {
      let n = from;
      let k = ply;
      while (n.children.length) {
        const [mainChild, ...sides] = n.children;
        into.append(moveBtn(mainChild, k + 1), ' ');
        for (const s of sides) {
          const v = h('span', { class: 'an-variation' }, '(', moveBtn(s, k + 1), ' ');
          walk(s, k + 1, v);
          v.append(')');
          into.append(v, ' ');
        }
        n = mainChild;
        k += 1;
      }
    };
    walk(st.root, 0, line);
    if (!st.root.children.length) line.append(h('span', { class: 'muted' }, t('analysis.noMoves')));
    box.append(line);
  }

  function back() { if (st.cur.parent) go(st.cur.parent); }
  function forward() { if (st.cur.children.length) go(st.cur.children[0]); }
  function last() { let n = st.cur; while (n.children.length) n = n.children[0]; go(n); }

  function drawEditor() {
    const box = el.editor;
    const focused = document.activeElement && document.activeElement.id;
    box.textContent = '';
    box.append(h('h2', { id: 'an-editor-h' }, t('analysis.setup')));
    const gpnInput = /** @type {HTMLInputElement} */ (h('input', { id: 'an-gpn', type: 'text', value: st.draft, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'an-gpn-help' }));
    box.append(h('form', { class: 'an-gpn-form', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); setPosition(gpnInput.value.trim(), st.rules); } },
      h('label', { for: 'an-gpn' }, t('analysis.gpn')), gpnInput,
      h('button', { type: 'submit', class: 'small', id: 'an-gpn-set' }, t('analysis.setGpn')),
      h('p', { id: 'an-gpn-help', class: 'muted small' }, t('analysis.gpnHelp'))));
    let pos;
    try { pos = parseGpn(st.draft); } catch (_) { pos = parseGpn(START_GPN); }
    const { preset, seeds } = splitRules(st.rules);
    /** Applies the editor's fields: a new GPN judged by the server. @param {(p: import('./gpn.js').Pos) => void} f @param {string} [rules] */
    const edit = (f, rules) => {
      const p = parseGpn(st.draft);
      f(p);
      const gpn = `${p.holes.slice(0, 4).join(',')}/${p.holes.slice(4).join(',')} ${p.controllers.slice(0, 4).join('')}/${p.controllers.slice(4).join('')} ${p.captured.A}-${p.captured.B} ${p.toMove} ${p.offer.length ? p.offer.join('+') : '-'}`;
      st.draft = gpn;
      setPosition(gpn, rules || st.rules);
    };
    const grid = h('div', { class: 'an-holes' });
    HOLES.forEach((hole, i) => {
      const input = /** @type {HTMLInputElement} */ (h('input', { type: 'number', min: '0', max: '96', id: `an-hole-${hole}`, value: String(pos.holes[i]), class: 'an-num',
        onchange: (/** @type {Event} */ e) => edit((p) => { p.holes[i] = Math.max(0, Number(/** @type {HTMLInputElement} */ (e.target).value) || 0); }) }));
      const ctrl = pos.controllers[i];
      grid.append(h('div', { class: 'an-hole' },
        h('label', { for: `an-hole-${hole}` }, hole),
        h('button', { type: 'button', class: 'small', id: `an-minus-${hole}`, 'aria-label': t('analysis.less', { hole }), onclick: () => edit((p) => { p.holes[i] = Math.max(0, p.holes[i] - 1); }) }, '−'),
        input,
        h('button', { type: 'button', class: 'small', id: `an-plus-${hole}`, 'aria-label': t('analysis.more', { hole }), onclick: () => edit((p) => { p.holes[i] += 1; }) }, '+'),
        h('button', { type: 'button', class: `small an-ctrl an-ctrl-${ctrl}`, id: `an-ctrl-${hole}`, 'aria-label': t('analysis.controller', { hole, player: ctrl }),
          onclick: () => edit((p) => { p.controllers[i] = p.controllers[i] === 'A' ? 'B' : 'A'; }) }, ctrl)));
    });
    box.append(grid);
    /** @param {'A'|'B'} p */
    const cap = (p) => h('label', { class: 'an-field' }, t('analysis.captured', { player: p }), ' ',
      h('input', { type: 'number', min: '0', max: '96', class: 'an-num', id: `an-captured-${p}`, value: String(pos.captured[p]),
        onchange: (/** @type {Event} */ e) => edit((x) => { x.captured[p] = Math.max(0, Number(/** @type {HTMLInputElement} */ (e.target).value) || 0); }) }));
    const toMove = h('select', { id: 'an-to-move', onchange: (/** @type {Event} */ e) => edit((x) => { x.toMove = /** @type {'A'|'B'} */ (/** @type {HTMLSelectElement} */ (e.target).value); }) },
      ...['A', 'B'].map((p) => h('option', { value: p, selected: pos.toMove === p }, p)));
    const offer = h('input', { type: 'text', id: 'an-offer', class: 'an-offer', value: pos.offer.join('+') || '-', spellcheck: 'false', 'aria-describedby': 'an-offer-help',
      onchange: (/** @type {Event} */ e) => edit((x) => { const v = /** @type {HTMLInputElement} */ (e.target).value.trim(); x.offer = !v || v === '-' ? [] : v.split('+'); }) });
    const rulesSel = h('select', { id: 'an-rules', onchange: (/** @type {Event} */ e) => {
      const r = joinRules(/** @type {HTMLSelectElement} */ (e.target).value, seeds);
      setPosition(startGpn(seeds), r);
    } }, ...PRESETS.concat(PRESETS.includes(preset) ? [] : [preset]).map((p) => h('option', { value: p, selected: p === preset }, p)));
    const seedsSel = h('select', { id: 'an-seeds', onchange: (/** @type {Event} */ e) => {
      const n = Number(/** @type {HTMLSelectElement} */ (e.target).value);
      setPosition(startGpn(n), joinRules(preset, n));
    } }, ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => h('option', { value: String(n), selected: n === seeds }, String(n))));
    box.append(h('div', { class: 'an-fields' },
      cap('A'), cap('B'),
      h('label', { class: 'an-field' }, t('analysis.toMoveField'), ' ', toMove),
      h('label', { class: 'an-field' }, t('analysis.offer'), ' ', offer),
      h('label', { class: 'an-field' }, t('analysis.rules'), ' ', rulesSel),
      h('label', { class: 'an-field' }, t('analysis.seedsPerHole'), ' ', seedsSel)),
    h('p', { id: 'an-offer-help', class: 'muted small' }, t('analysis.offerHelp')),
    h('button', { type: 'button', class: 'small ghost', id: 'an-reset', onclick: () => setPosition(startGpn(seeds), st.rules) }, t('analysis.reset')));
    if (focused) { const f = document.getElementById(focused); if (f) f.focus(); }
  }

  function drawShare() {
    const box = el.share;
    box.textContent = '';
    const url = shareUrl();
    const input = linkField('an-link', url, 'an-share-h');
    box.append(h('h2', { id: 'an-share-h' }, t('analysis.share')), h('div', { class: 'an-link-row' }, input, copyButton('an-copy', url, /** @type {HTMLInputElement} */ (input))));
  }

  function drawAll() {
    drawStatus();
    drawBoard();
    drawEval();
    drawActions();
    drawTree();
    drawEditor();
    drawShare();
  }

  /** ←/→ step through the tree (not while typing). @param {KeyboardEvent} e */
  function onKey(e) {
    const tgt = /** @type {HTMLElement|null} */ (e.target);
    if (tgt && (tgt.tagName === 'INPUT' || tgt.tagName === 'SELECT' || tgt.tagName === 'TEXTAREA' || tgt.closest('svg'))) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowLeft') { e.preventDefault(); back(); } else if (e.key === 'ArrowRight') { e.preventDefault(); forward(); }
  }

  /** Opens the position and line of the address (the link contract). */
  async function load() {
    const line = (q.get('line') || '').split(/\s+/).filter(Boolean);
    try {
      const r = await ask({ rules: st.rules, gpn: q.get('gpn') || undefined, line: line.join(' ') });
      st.rules = r.rules;
      st.root = node(null, null, r.start);
      st.draft = r.start;
      let n = st.root;
      line.forEach((a, i) => {
        const c = node(n, a, r.positions[i]);
        n.children.push(c);
        n = c;
      });
      const plyQ = q.get('ply');
      const ply = plyQ === null ? line.length : Math.max(0, Math.min(line.length, Number(plyQ) || 0));
      let cur = st.root;
      for (let i = 0; i < ply; i++) cur = cur.children[0];
      go(cur);
    } catch (e) {
      st.setupError = errorText(/** @type {import('./api.js').ApiError} */ (e));
      st.root = node(null, null, START_GPN);
      go(st.root);
    }
  }

  document.addEventListener('keydown', onKey);
  let loaded = false;
  // Leaving the page, even into the browser's back/forward cache, frees
  // its place on the analysis engine (the visitor's other tabs and his
  // reviews wait behind it); coming back analyses again.
  const onHide = () => { if (ws) ws.close(); };
  const onShow = (/** @type {PageTransitionEvent} */ e) => { if (e.persisted && !gone && st.on) analyse(); };
  window.addEventListener('pagehide', onHide);
  window.addEventListener('pageshow', onShow);

  return {
    render() {
      main.textContent = '';
      document.title = `Goré · ${t('nav.analysis')}`;
      main.append(h('div', { class: 'analysis-page' },
        h('h1', {}, t('analysis.title')),
        h('div', { class: 'an-layout' },
          h('div', { class: 'an-main' }, el.status, board.svg, el.error, el.evalBox, el.actions),
          h('div', { class: 'an-side' }, el.tree, el.editor, el.share))));
      board.svg.setAttribute('aria-label', t('analysis.boardLabel'));
      if (!loaded) { loaded = true; load(); } else drawAll();
    },
    destroy() {
      gone = true;
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
      if (ws) ws.close();
    },
  };
}
