// @ts-check
// A game's review (`/review/{id}` for a finished game, `/review` for an
// uploaded record): the server values every action (docs/API.md, "Game
// review"); this page draws the evaluation chart (SVG: A's expected final
// seeds over the game, the midline, the inaccuracies ?!, mistakes ? and
// blunders ?? marked), lists the actions with their classes, and shows the
// board at a chosen action with the action played and the better one,
// which can be played on the board or opened in the analysis board.

import { h, announce } from './dom.js';
import { call } from './api.js';
import { Board, svgEl } from './board.js';
import { errorText } from './errors.js';
import { parseAction, parseGpn } from './gpn.js';
import { actionWords, t, tn } from './i18n.js';

/**
 * @typedef {{ply: number, mover: 'A'|'B', gpn: string, action: string, before: number[], after: number[],
 *   best: string, best_after: number[], after_gpn: string, best_gpn: string, loss: number,
 *   class: string, mark: string, source: string}} Reviewed
 * @typedef {{actions: number, forced: number, average_loss: number, inaccuracies: number,
 *   mistakes: number, blunders: number}} Summary
 * @typedef {{rules: string, start: string, players: (string|null)[], total: number,
 *   outcome: number[]|null, result: string, actions: Reviewed[], summary: Summary[],
 *   depth: number, nodes: number, record: string}} ReviewData
 */

const MARKED = ['inaccuracy', 'mistake', 'blunder'];

/** Seeds with one decimal. @param {number} x */
const seeds = (x) => (Math.round(x * 10) / 10).toFixed(1);

/** The analysis board's link (the shared contract). @param {ReviewData} d @param {string[]} line @param {number} ply */
export function analysisLink(d, line, ply) {
  const q = new URLSearchParams({ rules: d.rules, gpn: d.start, line: line.join(' '), ply: String(ply) });
  return `/analysis?${q}`;
}

/** The words of an action's class. @param {Reviewed} a */
function classText(a) {
  return t(`gamereview.class.${a.class}`);
}

/** "12. B b3" @param {Reviewed} a */
const actionName = (a) => `${a.ply}. ${a.mover} ${actionWords(a.action)}`;

/**
 * The evaluation chart: A's expected final seeds before each action and at
 * the end, 0 at the bottom and all the seeds at the top, the even split
 * dashed; marked actions are focusable points.
 * @param {ReviewData} d
 * @param {number} selected index of the selected action
 * @param {(i: number) => void} onPick
 */
function chart(d, selected, onPick) {
  const W = 600, H = 220, PX = 34, PY = 16;
  const n = d.actions.length;
  const svg = /** @type {SVGSVGElement} */ (svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'review-chart', id: 'review-chart', role: 'group' }));
  svg.setAttribute('aria-label', t('gamereview.chartLabel', { n }));
  const x = (/** @type {number} */ i) => PX + (n ? (i * (W - 2 * PX)) / n : 0);
  const y = (/** @type {number} */ v) => PY + ((d.total - v) * (H - 2 * PY)) / d.total;
  svgEl('rect', { x: PX, y: PY, width: W - 2 * PX, height: (H - 2 * PY) / 2, class: 'review-chart-a' }, svg);
  svgEl('line', { x1: PX, y1: y(d.total / 2), x2: W - PX, y2: y(d.total / 2), class: 'review-midline' }, svg);
  const label = (/** @type {number} */ yy, /** @type {string} */ s) => { const e = svgEl('text', { x: 2, y: yy + 4, class: 'review-axis' }, svg); e.textContent = s; };
  label(y(d.total), String(d.total));
  label(y(d.total / 2), String(d.total / 2));
  label(y(0), '0');
  const pts = d.actions.map((a, i) => [x(i), y(a.before[0])]);
  const last = d.actions[n - 1];
  if (last) pts.push([x(n), y(d.outcome ? d.outcome[0] : last.after[0])]);
  svgEl('polyline', { points: pts.map((p) => p.join(',')).join(' '), class: 'review-line' }, svg);
  if (n && selected >= 0) {
    svgEl('line', { x1: x(selected + 1), y1: PY, x2: x(selected + 1), y2: H - PY, class: 'review-cursor' }, svg);
  }
  // Labels placed so that none covers another or a mark's circle where
  // marks cluster: above the circle, else below, else further out; a label
  // with no free place is left out (its circle's colour, title and name
  // still say it).
  /** @type {{x0: number, y0: number, x1: number, y1: number}[]} */
  const taken = d.actions
    .map((a, i) => (MARKED.includes(a.class) ? { x0: x(i + 1) - 9, y0: y(a.after[0]) - 9, x1: x(i + 1) + 9, y1: y(a.after[0]) + 9 } : null))
    .filter((b) => b !== null);
  /** Where a mark's label goes (its baseline), or null. @param {number} cx @param {number} cy @param {string} mark */
  const place = (cx, cy, mark) => {
    const w = 8 * mark.length + 2, hgt = 13;
    for (const base of [cy - 12, cy + 23, cy - 26, cy + 37, cy - 40, cy + 51]) {
      const box = { x0: cx - w / 2, y0: base - hgt + 2, x1: cx + w / 2, y1: base + 3 };
      if (box.y0 < 0 || box.y1 > H) continue;
      if (taken.some((b) => box.x0 < b.x1 && b.x0 < box.x1 && box.y0 < b.y1 && b.y0 < box.y1)) continue;
      taken.push(box);
      return base;
    }
    return null;
  };
  d.actions.forEach((a, i) => {
    if (!MARKED.includes(a.class)) return;
    const g = svgEl('g', {
      class: `review-mark review-${a.class}${i === selected ? ' selected' : ''}`,
      tabindex: 0, role: 'button', 'data-ply': a.ply, id: `review-mark-${a.ply}`,
    }, svg);
    g.setAttribute('aria-label', t('gamereview.markLabel', { action: actionName(a), cls: classText(a), loss: seeds(a.loss) }));
    const cx = x(i + 1), cy = y(a.after[0]);
    svgEl('circle', { cx, cy, r: 9 }, g);
    const base = place(cx, cy, a.mark);
    if (base !== null) {
      const txt = svgEl('text', { x: cx, y: base, class: 'review-mark-text' }, g);
      txt.textContent = a.mark;
    }
    const title = svgEl('title', {}, g);
    title.textContent = `${actionName(a)} ${a.mark}`;
    g.addEventListener('click', () => onPick(i));
    g.addEventListener('keydown', (e) => {
      const k = /** @type {KeyboardEvent} */ (e).key;
      if (k === 'Enter' || k === ' ') { e.preventDefault(); onPick(i); }
    });
  });
  return svg;
}

/**
 * @param {HTMLElement} main
 * @param {string | null} id the game reviewed, or null for an uploaded record
 */
export function reviewPage(main, id) {
  /** @type {ReviewData|null} */
  let data = null;
  /** @type {string|null} */
  let error = null;
  let loading = false;
  let selected = -1;
  /** What the board shows at the selected action: the position before it, after the played action, or after the better one. */
  let view = /** @type {'before'|'played'|'best'} */ ('before');
  let alive = true;
  const board = new Board({ interactive: true, onHole: (hole) => playBest(hole) });

  /** Where the request waits, in words (its place in the analysis engine's queue), or ''. */
  let waitText = '';
  /** Requests made for this review (a busy answer is asked again). */
  let tries = 0;

  /** While the review loads, its place in the analysis engine's queue, once a second. */
  function pollPlace() {
    const path = id ? `/api/games/${encodeURIComponent(id)}/review/status` : '/api/review/status';
    const mine = tries;
    call('GET', path).then((/** @type {{state: string, place?: number}} */ s) => {
      if (!alive || !loading || mine !== tries) return;
      const text = s.state === 'queued'
        ? (s.place ? tn('gamereview.queued', s.place) : t('gamereview.queuedNext'))
        : '';
      if (text !== waitText) {
        waitText = text;
        const p = document.getElementById('review-loading');
        if (p) p.textContent = waitText || t('gamereview.loading');
      }
    }).catch(() => { /* the next look may answer */ }).finally(() => {
      if (alive && loading && mine === tries) setTimeout(pollPlace, 1000);
    });
  }

  /**
   * Asks for the review (again while the analysis engine says it is busy:
   * the page never dead-ends on "busy").
   * @param {() => Promise<ReviewData>} ask
   */
  function load(ask) {
    // Asked again after "busy": the page stays as it is, its words too.
    const again = loading;
    loading = true;
    error = null;
    tries += 1;
    const mine = tries;
    if (!again) {
      waitText = '';
      render();
    }
    pollPlace();
    ask().then((d) => {
      if (!alive || mine !== tries) return;
      data = d;
      loading = false;
      // Open at the first blunder, else the first marked action, else the first.
      const first = ['blunder', 'mistake', 'inaccuracy'].map((c) => d.actions.findIndex((a) => a.class === c)).find((i) => i >= 0);
      selected = first === undefined ? (d.actions.length ? 0 : -1) : first;
      render();
      announce(t('gamereview.ready'));
    }).catch((e) => {
      if (!alive || mine !== tries) return;
      if (e && e.code === 'busy') {
        // The analysis engine is full: say so and ask again by itself.
        waitText = t('gamereview.busyRetry');
        const p = document.getElementById('review-loading');
        if (p) p.textContent = waitText;
        setTimeout(() => { if (alive && mine === tries) load(ask); }, 3000);
        return;
      }
      loading = false;
      error = errorText(e);
      render();
    });
  }

  /** @param {string} hole */
  function playBest(hole) {
    if (!data || selected < 0) return;
    const a = data.actions[selected];
    if (a.best !== hole) return;
    view = 'best';
    render();
    announce(t('gamereview.playedBest', { action: actionWords(a.best) }));
  }

  /** @param {number} i */
  function pick(i) {
    if (!data) return;
    selected = Math.max(0, Math.min(data.actions.length - 1, i));
    view = 'before';
    render();
    const btn = document.getElementById(`review-ply-${selected + 1}`);
    if (btn) btn.focus();
  }

  function uploadForm() {
    const file = /** @type {HTMLInputElement} */ (h('input', { type: 'file', id: 'review-file', accept: '.gore,.txt,text/plain' }));
    const text = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: 'review-text', rows: 6, spellcheck: 'false' }));
    file.addEventListener('change', () => {
      const f = file.files && file.files[0];
      if (f) f.text().then((s) => { text.value = s; });
    });
    const form = h('form', { class: 'card review-upload', id: 'review-upload' },
      h('p', null, t('gamereview.uploadIntro')),
      h('label', { for: 'review-file' }, t('gamereview.file')), file,
      h('label', { for: 'review-text' }, t('gamereview.paste')), text,
      h('div', { class: 'button-row' }, h('button', { type: 'submit', class: 'button primary', id: 'review-submit' }, t('gamereview.submit'))));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (!text.value.trim()) { error = t('gamereview.empty'); render(); return; }
      const record = text.value;
      load(() => call('POST', '/api/review', { record }));
    });
    return form;
  }

  function summary(/** @type {ReviewData} */ d) {
    const row = (/** @type {number} */ i) => {
      const s = d.summary[i];
      const p = i === 0 ? 'A' : 'B';
      const name = d.players[i] ? `${p} · ${d.players[i]}` : p;
      return h('tr', { id: `review-summary-${p}` },
        h('th', { scope: 'row' }, name),
        h('td', null, String(s.actions)),
        h('td', null, seeds(s.average_loss)),
        h('td', { class: 'review-inaccuracy' }, String(s.inaccuracies)),
        h('td', { class: 'review-mistake' }, String(s.mistakes)),
        h('td', { class: 'review-blunder' }, String(s.blunders)));
    };
    return h('table', { class: 'review-summary', id: 'review-summary' },
      h('caption', null, t('gamereview.summary')),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, t('gamereview.player')),
        h('th', { scope: 'col' }, t('gamereview.actions')),
        h('th', { scope: 'col' }, t('gamereview.averageLoss')),
        // On a phone the marks alone head the columns (the words stay for screen readers).
        h('th', { scope: 'col' }, '?! ', h('span', { class: 'review-col-word' }, t('gamereview.class.inaccuracy'))),
        h('th', { scope: 'col' }, '? ', h('span', { class: 'review-col-word' }, t('gamereview.class.mistake'))),
        h('th', { scope: 'col' }, '?? ', h('span', { class: 'review-col-word' }, t('gamereview.class.blunder'))))),
      h('tbody', null, row(0), row(1)));
  }

  function detail(/** @type {ReviewData} */ d) {
    const box = h('section', { class: 'card review-detail', id: 'review-detail', 'aria-live': 'polite' });
    if (selected < 0) return box;
    const a = d.actions[selected];
    const gpn = view === 'best' ? a.best_gpn : view === 'played' ? a.after_gpn : a.gpn;
    const pos = parseGpn(gpn);
    const played = parseAction(a.action);
    const best = parseAction(a.best);
    const differs = a.best !== a.action;
    board.render(pos, view === 'before' ? {
      origin: played.kind === 'sow' ? played.hole : null,
      legal: differs && best.kind === 'sow' ? [best.hole] : [],
      offered: pos.offer,
    } : { offered: pos.offer });
    const line = d.actions.slice(0, selected).map((x) => x.action);
    box.append(
      h('h2', { id: 'review-detail-title' }, t('gamereview.at', { action: actionName(a) })),
      h('p', { id: 'review-played', class: `review-${a.class}` },
        t('gamereview.played', { player: a.mover, action: actionWords(a.action), a: seeds(a.after[0]), b: seeds(a.after[1]) }), ' ',
        h('strong', null, `${a.mark ? `${a.mark} ` : ''}${classText(a)}`),
        a.loss > 0 && a.class !== 'forced' ? ` — ${t('gamereview.lost', { n: seeds(a.loss) })}` : ''),
      differs
        ? h('p', { id: 'review-best', class: 'review-best' },
          t('gamereview.better', { action: actionWords(a.best), a: seeds(a.best_after[0]), b: seeds(a.best_after[1]) }),
          best.kind === 'sow' && view === 'before' ? ` ${t('gamereview.clickBest', { hole: a.best })}` : '')
        : h('p', { id: 'review-best', class: 'muted' }, t('gamereview.wasBest')),
      h('p', { class: 'muted', id: 'review-showing' }, t(`gamereview.showing.${view}`, { action: actionWords(view === 'best' ? a.best : a.action) })),
      h('div', { class: 'board-wrap review-board' }, board.svg),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'button', id: 'review-prev', disabled: selected === 0, onclick: () => pick(selected - 1) }, t('gamereview.prev')),
        h('button', { type: 'button', class: 'button', id: 'review-next', disabled: selected === d.actions.length - 1, onclick: () => pick(selected + 1) }, t('gamereview.next')),
        h('button', { type: 'button', class: 'button', id: 'review-show-played', 'aria-pressed': String(view === 'played'), onclick: () => { view = view === 'played' ? 'before' : 'played'; render(); } }, t('gamereview.showPlayed')),
        differs ? h('button', { type: 'button', class: 'button primary', id: 'review-play-best', 'aria-pressed': String(view === 'best'), onclick: () => { view = view === 'best' ? 'before' : 'best'; render(); } }, t('gamereview.playBest', { action: actionWords(a.best) })) : null,
        h('a', { class: 'button', id: 'review-analysis-best', href: analysisLink(d, [...line, a.best], selected + 1) }, t('gamereview.openAnalysis'))));
    return box;
  }

  function list(/** @type {ReviewData} */ d) {
    const ol = h('ol', { class: 'review-list', id: 'review-list' });
    d.actions.forEach((a, i) => {
      const btn = h('button', {
        type: 'button', id: `review-ply-${a.ply}`, class: `review-item review-${a.class}`,
        'aria-current': i === selected ? 'true' : null,
        onclick: () => pick(i),
        onkeydown: (/** @type {KeyboardEvent} */ e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowRight') { e.preventDefault(); pick(i + 1); }
          if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') { e.preventDefault(); pick(i - 1); }
        },
      }, `${actionName(a)}${a.mark ? ` ${a.mark}` : ''}`);
      btn.setAttribute('aria-label', `${actionName(a)}: ${classText(a)}${a.loss > 0 && a.class !== 'forced' ? `, ${t('gamereview.lost', { n: seeds(a.loss) })}` : ''}`);
      ol.append(h('li', null, btn));
    });
    return ol;
  }

  function download(/** @type {ReviewData} */ d) {
    const blob = new Blob([d.record], { type: 'text/plain;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: `gore-review${id ? `-${id}` : ''}.gore` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function render() {
    document.title = `Goré · ${t('gamereview.title')}`;
    main.textContent = '';
    const page = h('div', { class: 'review-page', id: 'review-page' });
    main.append(page);
    page.append(h('h1', null, t('gamereview.title')));
    if (!id && !data) page.append(uploadForm());
    if (error) page.append(h('p', { class: 'error', role: 'alert', id: 'review-error' }, error));
    if (loading) page.append(h('p', { class: 'loading', id: 'review-loading', 'aria-busy': 'true', role: 'status' }, waitText || t('gamereview.loading')));
    if (!data) return;
    const d = data;
    page.append(
      h('p', { class: 'muted', id: 'review-intro' }, t('gamereview.intro', { depth: d.depth, result: d.result })),
      h('figure', { class: 'card review-figure' },
        chart(d, selected, pick),
        h('figcaption', { class: 'muted' }, t('gamereview.chartCaption'))),
      summary(d),
      h('div', { class: 'review-columns' }, list(d), detail(d)),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'button', id: 'review-download', onclick: () => download(d) }, t('gamereview.download')),
        id ? h('a', { class: 'button', href: `/g/${encodeURIComponent(id)}` }, t('gamereview.backToGame')) : null));
  }

  if (id) load(() => call('GET', `/api/games/${encodeURIComponent(id)}/review`));
  return {
    render,
    destroy() { alive = false; },
  };
}
