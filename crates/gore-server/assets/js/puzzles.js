// @ts-check
// Puzzles: a position where one action is clearly best (docs/NOTATION.md,
// "Puzzle files"). The player answers by a hole (click or keyboard) or a
// button (offer, accept, decline, pass, as the position allows); the
// server says right or wrong, with the answer, its margin and themes, and
// the player's new puzzle rating, which decides the next puzzle's
// difficulty. After a miss the player may try again (the position comes
// back; only the first try counts for the rating) or see the solution;
// the solution steps through the answer and the expected line on the
// board (buttons, or the arrow keys). The rating, the streak and the
// recently seen puzzles stay in this browser (localStorage).

import { call } from './api.js';
import { Board } from './board.js';
import { h, announce } from './dom.js';
import { parseGpn, parseAction } from './gpn.js';
import { t, tn, tlist } from './i18n.js';

/**
 * @typedef {{id: string, rules: string, gpn: string, to_move: 'A'|'B', rating: number, legal: string[]}} PuzzleView
 * @typedef {{theme: string, count: number}} ThemeCount
 * @typedef {{correct: boolean, answer: string, answers: string[], margin: number, depth: number, deep: number, themes: string[], line: string[], positions: string[], rating: number, new_rating: number}} SolveResult
 */


const KEY = { rating: 'gore.puzzles.rating', streak: 'gore.puzzles.streak', seen: 'gore.puzzles.seen', theme: 'gore.puzzles.theme' };
const SEEN_MAX = 30;

/** @param {string} k @param {string} dflt */
function load(k, dflt) {
  try { return localStorage.getItem(k) ?? dflt; } catch (_) { return dflt; }
}
/** @param {string} k @param {string} v */
function save(k, v) {
  try { localStorage.setItem(k, v); } catch (_) { /* private mode: the page still works */ }
}

/** An action token for people: "a3", "offer a1, a3", "accept". @param {string} a */
export function actionText(a) {
  const p = parseAction(a);
  if (p.kind === 'sow') return p.hole;
  if (p.kind === 'offer') return t('puzzles.offerHoles', { holes: tlist(p.holes) });
  return t(`puzzles.action.${p.kind}`);
}

/** An action inside a sentence or a list: its first letter in lower case ("decline the offer"). @param {string} a */
function actionInText(a) {
  const s = actionText(a);
  return s.charAt(0).toLocaleLowerCase() + s.slice(1);
}

/** The link to the analysis board (the link contract of docs/API.md). @param {PuzzleView} pz @param {string[]} line */
function analysisLink(pz, line) {
  const q = new URLSearchParams({ rules: pz.rules, gpn: pz.gpn, line: line.join(' '), ply: '0' });
  return `/analysis?${q}`;
}

/**
 * @param {HTMLElement} main
 */
export function puzzlesPage(main) {
  /** @type {PuzzleView|null} */
  let pz = null;
  /** @type {SolveResult|null} */
  let result = null;
  /** @type {string|null} */
  let error = null;
  let busy = false;
  let gen = 0;
  // After a miss: the solution is hidden until asked for; a second try
  // does not count for the rating.
  let revealed = false;
  let retry = false;
  // The step of the solution shown: 0 the puzzle, k after its k-th action.
  let step = 1;
  const board = new Board({ interactive: true, onHole: (hole) => answer(hole) });
  // The themes that have puzzles (the server's book), once known: the
  // filter offers only those, a theme without puzzles answering nothing.
  /** @type {ThemeCount[]|null} */
  let offered = null;

  const rating = () => Number(load(KEY.rating, '1500')) || 1500;
  const streak = () => Number(load(KEY.streak, '0')) || 0;
  const seen = () => load(KEY.seen, '').split(',').filter(Boolean);

  async function next() {
    const my = ++gen;
    pz = null;
    result = null;
    error = null;
    revealed = false;
    retry = false;
    draw();
    const q = new URLSearchParams({ rating: String(rating()), seen: seen().join(',') });
    const theme = load(KEY.theme, '');
    if (theme) q.set('theme', theme);
    try {
      const p = /** @type {PuzzleView} */ (await call('GET', `/api/puzzles/next?${q}`));
      if (my !== gen) return;
      pz = p;
      save(KEY.seen, [p.id, ...seen().filter((x) => x !== p.id)].slice(0, SEEN_MAX).join(','));
    } catch (e) {
      if (my !== gen) return;
      error = String(/** @type {Error} */ (e).message || e);
    }
    draw();
    const first = main.querySelector('.board .hole.legal');
    if (first instanceof SVGElement) first.focus();
  }

  async function loadThemes() {
    try {
      offered = /** @type {{themes: ThemeCount[]}} */ (await call('GET', '/api/puzzles/themes')).themes;
    } catch (_) {
      return; // the filter keeps what it has
    }
    const saved = load(KEY.theme, '');
    if (saved && !offered.some((o) => o.theme === saved)) {
      // A theme kept from an older book: all themes instead.
      save(KEY.theme, '');
      next();
      return;
    }
    const select = main.querySelector('#puzzle-theme');
    if (select instanceof HTMLSelectElement) {
      select.replaceChildren(...themeOptions());
      select.value = saved;
    }
  }

  /** The filter's choices: all themes, then each that has puzzles (until
   * they are known, the one chosen before). */
  function themeOptions() {
    const saved = load(KEY.theme, '');
    const names = offered ? offered.map((o) => o.theme) : saved ? [saved] : [];
    return [
      h('option', { value: '' }, t('puzzles.theme.all')),
      ...names.map((th) => h('option', { value: th }, t(`puzzles.theme.${th}`))),
    ];
  }

  /** @param {string} action */
  async function answer(action) {
    if (!pz || result || busy) return;
    busy = true;
    const id = pz.id;
    try {
      const r = /** @type {SolveResult} */ (await call('POST', `/api/puzzles/${encodeURIComponent(id)}/solve`, { action, rating: rating() }));
      if (!pz || pz.id !== id) return;
      result = r;
      step = 1;
      revealed = r.correct;
      if (!retry) {
        save(KEY.rating, String(r.new_rating));
        save(KEY.streak, String(r.correct ? streak() + 1 : 0));
      }
      announce(r.correct ? t(retry ? 'puzzles.correctRetry' : 'puzzles.correct') : t('puzzles.wrongTry'));
    } catch (e) {
      error = String(/** @type {Error} */ (e).message || e);
    } finally {
      busy = false;
    }
    draw();
    const nb = main.querySelector(result && !result.correct ? '#puzzle-retry' : '#puzzle-next');
    if (nb instanceof HTMLElement) nb.focus();
  }

  /** Back to the puzzle's position after a miss. */
  function tryAgain() {
    if (!result || result.correct) return;
    result = null;
    retry = true;
    revealed = false;
    draw();
    announce(t('puzzles.task', { player: pz ? pz.to_move : '' }));
    const first = main.querySelector('.board .hole.legal');
    if (first instanceof SVGElement) first.focus();
  }

  function reveal() {
    revealed = true;
    step = 1;
    draw();
    const first = main.querySelector('#puzzle-step-next');
    if (first instanceof HTMLElement) first.focus();
  }

  /** Shows step `k` of the solution (kept within it). @param {number} k */
  function goStep(k) {
    if (!result || !revealed) return;
    const last = result.positions.length - 1;
    step = Math.max(0, Math.min(last, k));
    const focused = document.activeElement && document.activeElement.id;
    draw();
    announce(stepText());
    // Keep the focus on the button used, or on one still enabled.
    const again = focused ? document.getElementById(focused) : null;
    const target = again instanceof HTMLButtonElement && !again.disabled ? again : main.querySelector('.puzzle-steps button:not([disabled])');
    if (target instanceof HTMLElement) target.focus();
  }

  /** The solution's actions: the answer, then the line. */
  function solution() {
    return result ? [result.answer, ...result.line] : [];
  }

  function stepText() {
    if (!result) return '';
    if (step === 0) return t('puzzles.stepStart');
    const before = parseGpn(result.positions[step - 1]);
    return t('puzzles.step', { n: step, total: result.positions.length - 1, player: before.toMove, action: actionInText(solution()[step - 1]) });
  }

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (!result || !revealed || e.altKey || e.ctrlKey || e.metaKey) return;
    const tgt = e.target;
    if (tgt instanceof HTMLSelectElement || tgt instanceof HTMLInputElement) return;
    const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: result.positions.length - 1 };
    const k = /** @type {Record<string, number>} */ (moves)[e.key];
    if (k === undefined) return;
    e.preventDefault();
    goStep(k);
  }
  document.addEventListener('keydown', onKey);

  function draw() {
    main.textContent = '';
    document.title = `Goré · ${t('nav.puzzles')}`;
    const select = /** @type {HTMLSelectElement} */ (h('select', { id: 'puzzle-theme', onchange: () => { save(KEY.theme, select.value); next(); } },
      ...themeOptions()));
    select.value = load(KEY.theme, '');
    const stats = h('p', { class: 'puzzle-stats', id: 'puzzle-stats' },
      h('span', { id: 'puzzle-rating' }, t('puzzles.rating', { n: rating() })), ' · ',
      h('span', { id: 'puzzle-streak' }, tn('puzzles.streak', streak())));
    main.append(
      h('h1', {}, t('nav.puzzles')),
      h('div', { class: 'puzzle-bar' },
        h('label', { for: 'puzzle-theme' }, t('puzzles.themeLabel')), ' ', select),
      stats,
    );
    if (error) main.append(h('p', { class: 'error', role: 'alert' }, error));
    if (!pz) {
      if (!error) main.append(h('p', {}, t('puzzles.loading')));
      return;
    }
    const showing = !!result && revealed && result.positions.length > 0;
    const pos = parseGpn(showing && result ? result.positions[step] : pz.gpn);
    board.setBottom(pz.to_move);
    const solved = !!result;
    const sows = solved ? [] : pz.legal.filter((a) => parseAction(a).kind === 'sow');
    /** @type {string|null} */
    let origin = null;
    if (showing && step > 0) {
      const a = parseAction(solution()[step - 1]);
      if (a.kind === 'sow') origin = a.hole;
    }
    board.render(pos, { legal: sows, offered: pos.offer, origin });
    main.append(
      h('p', { class: 'puzzle-task', id: 'puzzle-task' }, t('puzzles.task', { player: pz.to_move }),
        ' ', h('span', { class: 'puzzle-difficulty' }, t('puzzles.difficulty', { n: pz.rating }))),
      h('div', { class: 'puzzle-board' }, board.svg),
    );
    if (!solved) {
      const buttons = h('div', { class: 'puzzle-actions' });
      for (const a of pz.legal) {
        const k = parseAction(a).kind;
        if (k === 'accept' || k === 'decline' || k === 'pass') {
          buttons.append(h('button', { type: 'button', 'data-action': a, onclick: () => answer(a) }, actionText(a)));
        }
      }
      const offers = pz.legal.filter((a) => parseAction(a).kind === 'offer');
      if (offers.length) {
        buttons.append(h('details', { class: 'puzzle-offers' },
          h('summary', {}, t('puzzles.offers')),
          h('div', { class: 'puzzle-offer-list' },
            ...offers.map((a) => h('button', { type: 'button', 'data-action': a, onclick: () => answer(a) }, actionText(a))))));
      }
      if (buttons.childNodes.length) main.append(buttons);
    } else if (result && !revealed) {
      main.append(h('section', { class: 'puzzle-result wrong', id: 'puzzle-result', role: 'status' },
        h('p', { class: 'puzzle-verdict' }, t('puzzles.wrongTry')),
        h('div', { class: 'puzzle-actions' },
          h('button', { type: 'button', class: 'primary', id: 'puzzle-retry', onclick: () => tryAgain() }, t('puzzles.tryAgain')),
          h('button', { type: 'button', id: 'puzzle-reveal', onclick: () => reveal() }, t('puzzles.showSolution')),
          h('button', { type: 'button', id: 'puzzle-next', onclick: () => next() }, t('puzzles.next')))));
    } else if (result) {
      const themes = tlist(result.themes.map((th) => t(`puzzles.theme.${th}`)));
      const others = result.answers.filter((a) => a !== result?.answer);
      const last = result.positions.length - 1;
      const verdict = result.correct ? t(retry ? 'puzzles.correctRetry' : 'puzzles.correct') : t('puzzles.wrong', { answer: actionText(result.answer) });
      main.append(h('section', { class: `puzzle-result ${result.correct ? 'right' : 'wrong'}`, id: 'puzzle-result', role: 'status' },
        h('p', { class: 'puzzle-verdict' }, verdict),
        // The sentence starts with words, not the action: an action token
        // ("offer a1", "a3") is lower case.
        h('p', { id: 'puzzle-why' }, t('puzzles.why', { answer: actionText(result.answer), margin: tn('seeds', result.margin), depth: result.depth, deep: result.deep })),
        others.length ? h('p', { id: 'puzzle-also' }, t('puzzles.alsoAccepted', { answers: tlist(others.map(actionText)) })) : '',
        h('p', {}, t('puzzles.themes', { themes })),
        result.line.length ? h('p', {}, t('puzzles.line', { line: result.line.map(actionInText).join(', ') })) : ''),
        h('div', { class: 'puzzle-steps', role: 'group', 'aria-label': t('puzzles.solutionSteps') },
          h('button', { type: 'button', class: 'small', id: 'puzzle-step-first', 'aria-label': t('puzzles.stepFirst'), disabled: step === 0, onclick: () => goStep(0) }, '«'),
          h('button', { type: 'button', class: 'small', id: 'puzzle-step-prev', 'aria-label': t('puzzles.stepPrev'), disabled: step === 0, onclick: () => goStep(step - 1) }, '‹'),
          h('span', { class: 'puzzle-step-text', id: 'puzzle-step' }, stepText()),
          h('button', { type: 'button', class: 'small', id: 'puzzle-step-next', 'aria-label': t('puzzles.stepNext'), disabled: step >= last, onclick: () => goStep(step + 1) }, '›'),
          h('button', { type: 'button', class: 'small', id: 'puzzle-step-last', 'aria-label': t('puzzles.stepLast'), disabled: step >= last, onclick: () => goStep(last) }, '»')),
        h('div', { class: 'puzzle-actions' },
          h('button', { type: 'button', class: 'primary', id: 'puzzle-next', onclick: () => next() }, t('puzzles.next')),
          h('a', { href: analysisLink(pz, solution()), id: 'puzzle-analysis' }, t('puzzles.analysis'))));
    }
  }

  return {
    render() {
      if (!pz && !error && gen === 0) {
        draw();
        next();
        loadThemes();
      } else {
        draw();
      }
    },
    destroy() { gen++; document.removeEventListener('keydown', onKey); },
  };
}
