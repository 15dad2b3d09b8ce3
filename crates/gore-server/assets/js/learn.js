// @ts-check
// The lessons of a guided first game: a list with this browser's progress,
// and each lesson a short text, a goal and a small board played by mouse or
// keyboard. The server judges every action with the rules library
// (POST /api/lessons/{id}/check) and sends the legal actions; this page
// only draws and explains.

import { call } from './api.js';
import { Board } from './board.js';
import { announce, h } from './dom.js';
import { errorText } from './errors.js';
import { t, tn } from './i18n.js';
import { HOLES, offerToken, parseGpn } from './gpn.js';
import { progress, saveProgress } from './progress.js';

/**
 * @typedef {{id: string, rules: string, gpn: string, goal: {kind: string, hole?: string, seeds?: number},
 *   moves: number, legal: string[], hint: string}} Lesson
 * @typedef {{kind: string, expected?: string, played?: string, hole?: string, goal_hole?: string,
 *   seeds?: number, goal?: number, own?: boolean}} Miss
 * @typedef {{status: string, gpn: string, legal: string[], replies: string[], path: string[],
 *   captured: string[], seeds_captured: number, miss?: Miss,
 *   result?: {seeds: number[], winner?: string, without_glory: boolean}}} Check
 */

/** The sentence of a missed goal. @param {Miss} m */
function missText(m) {
  const n = m.seeds ?? 0;
  switch (m.kind) {
    case 'wrong_kind': return t('learn.miss.wrongKind', { expected: t(`learn.kind.${m.expected}`) });
    case 'landed_elsewhere': return t('learn.miss.landedElsewhere', { hole: m.hole || '', goal: m.goal_hole || '' });
    case 'no_capture': return m.own
      ? t('learn.miss.noCaptureOwn', { hole: m.hole || '' })
      : t('learn.miss.noCapture', { hole: m.hole || '', seeds: tn('seeds', n) });
    case 'too_few': return t('learn.miss.tooFew', { seeds: tn('seeds', n), goal: m.goal ?? 0 });
    case 'no_backward_chain': return t('learn.miss.noBackward', { seeds: tn('seeds', n) });
    case 'no_forward_chain_into_own': return t('learn.miss.noForward', { seeds: tn('seeds', n) });
    case 'board_left': return t('learn.miss.boardLeft', { seeds: tn('seeds', n), left: tn('seeds', m.goal ?? 0) });
    case 'not_ended': return t('learn.miss.notEnded', { hole: m.hole || '', seeds: tn('seeds', n) });
    case 'not_won': return t('learn.miss.notWon', { a: n, b: m.goal ?? 0 });
    default: return t('learn.miss.unknown');
  }
}

/** The opponent's scripted reply in a sentence. @param {string} action */
function replyText(action) {
  if (HOLES.includes(action)) return t('learn.reply.sow', { hole: action });
  if (action === 'accept') return t('learn.reply.accept');
  if (action === 'decline') return t('learn.reply.decline');
  if (action === 'pass') return t('learn.reply.pass');
  return t('learn.reply.offer');
}

/**
 * @param {HTMLElement} main
 */
export function learnPage(main) {
  /** @type {Lesson[]|null} */
  let lessons = null;
  /** @type {string|null} */
  let loadError = null;
  /** The open lesson's index, or -1 for the list. */
  let current = -1;
  /** The learner's actions in the open lesson. @type {string[]} */
  let actions = [];
  /** The last answer of the server for the open lesson. @type {Check|null} */
  let last = null;
  /** Choosing holes to offer. */
  let offering = false;
  /** @type {Set<string>} */
  let chosen = new Set();
  let hinted = false;
  let busy = false;
  /** What to focus after the next render: an element id, `board` (its Tab stop) or `hole:a1`. @type {string|null} */
  let focusAfter = null;
  /** The open lesson's board, as last drawn. @type {Board|null} */
  let board = null;

  const fromUrl = new URLSearchParams(location.search).get('lesson');

  async function load() {
    try {
      const r = /** @type {{lessons: Lesson[]}} */ (await call('GET', '/api/lessons'));
      lessons = r.lessons;
      const i = lessons.findIndex((l) => l.id === fromUrl);
      if (i >= 0) open(i, false);
    } catch (e) {
      loadError = errorText(/** @type {import('./api.js').ApiError} */ (e)) || String(e);
    }
    render();
  }

  /** Opens lesson i. @param {number} i @param {boolean} focus */
  function open(i, focus) {
    current = i;
    actions = [];
    last = null;
    offering = false;
    chosen = new Set();
    hinted = false;
    saveProgress({ started: true });
    const id = lessons && lessons[i] ? lessons[i].id : '';
    history.replaceState(null, '', i >= 0 ? `/learn?lesson=${encodeURIComponent(id)}` : '/learn');
    if (focus) focusAfter = 'lesson-title';
  }

  /** Sends the actions so far plus one. @param {string} action */
  async function play(action) {
    if (!lessons || busy) return;
    const lesson = lessons[current];
    busy = true;
    try {
      const next = actions.concat([action]);
      const r = /** @type {Check} */ (await call('POST', `/api/lessons/${encodeURIComponent(lesson.id)}/check`, { actions: next }));
      actions = next;
      last = r;
      offering = false;
      chosen = new Set();
      if (r.status === 'met') {
        const p = progress();
        if (!p.done.includes(lesson.id)) saveProgress({ done: p.done.concat([lesson.id]) });
        focusAfter = current + 1 < lessons.length ? 'lesson-next' : 'lesson-list';
      } else if (r.status === 'missed') {
        focusAfter = 'lesson-retry';
      } else {
        focusAfter = 'board';
      }
    } catch (e) {
      last = null;
      loadError = errorText(/** @type {import('./api.js').ApiError} */ (e)) || String(e);
    } finally {
      busy = false;
    }
    render();
    const fb = document.getElementById('lesson-feedback');
    if (fb) announce(fb.textContent || '');
  }

  function listView() {
    const p = progress();
    const list = /** @type {Lesson[]} */ (lessons);
    const items = list.map((l, i) => {
      const done = p.done.includes(l.id);
      return h('li', { class: `lesson-item${done ? ' done' : ''}` },
        h('button', { type: 'button', class: 'lesson-open', id: `lesson-open-${l.id}`, onclick: () => { open(i, true); render(); } },
          h('span', { class: 'lesson-num' }, String(i + 1)),
          h('span', { class: 'lesson-name' }, t(`learn.${l.id}.title`)),
          h('span', { class: 'lesson-state' }, done ? t('learn.done') : '')));
    });
    const doneCount = list.filter((l) => p.done.includes(l.id)).length;
    return h('section', { class: 'card learn-list', 'aria-labelledby': 'learn-title' },
      h('h1', { id: 'learn-title', tabindex: '-1' }, t('learn.title')),
      h('p', { class: 'lead' }, t('learn.intro')),
      h('p', { class: 'hint', id: 'learn-progress' }, t('learn.progress', { done: doneCount, total: list.length })),
      h('ol', { class: 'lesson-list' }, ...items));
  }

  function lessonView() {
    const list = /** @type {Lesson[]} */ (lessons);
    const lesson = list[current];
    const id = lesson.id;
    const status = last ? last.status : 'open';
    const legal = status === 'met' || status === 'missed' ? [] : (last ? last.legal : lesson.legal);
    const gpn = last ? last.gpn : lesson.gpn;
    const pos = parseGpn(gpn);
    const offers = legal.filter((a) => a.startsWith('offer:'));

    board = new Board({
      interactive: true,
      label: t('learn.boardLabel'),
      onHole: (hole) => {
        if (offering) {
          if (chosen.has(hole)) chosen.delete(hole); else chosen.add(hole);
          focusAfter = `hole:${hole}`;
          render();
        } else if (legal.includes(hole)) {
          play(hole);
        }
      },
    });
    board.svg.id = 'board';
    /** @type {import('./board.js').Marks} */
    const marks = {};
    if (offering) {
      const mine = HOLES.filter((hh, i) => pos.controllers[i] === pos.toMove && offers.some((o) => o.slice(6).split(',').includes(hh)));
      marks.selectable = mine;
      marks.selected = [...chosen];
    } else {
      marks.legal = legal.filter((a) => HOLES.includes(a));
    }
    if (last) marks.captured = last.captured;
    if (pos.offer.length) marks.offered = pos.offer;
    // Show the move, not just its result: the hole sown last (the
    // opponent's reply if he sowed one, else the learner's), and for the
    // learner's sowing each hole a seed fell into, the last one ringed.
    /** @type {string[]} */
    let sown = [];
    if (last) {
      const reply = last.replies.length ? last.replies[last.replies.length - 1] : null;
      const mine = actions[actions.length - 1];
      if (reply && HOLES.includes(reply)) {
        marks.origin = reply;
      } else if (!last.replies.length && mine && HOLES.includes(mine) && last.path.length) {
        marks.origin = mine;
        sown = last.path;
      }
    }
    board.render(pos, marks);
    sown.forEach((hole, k) => {
      const g = board && board.svg.querySelector(`.hole[data-hole="${hole}"]`);
      if (!g || g.classList.contains('landed')) return;
      const landed = k === sown.length - 1;
      // Said in the hole's name too (the ring is drawn, not written).
      if (!g.classList.contains('sown-into') || landed) {
        g.setAttribute('aria-label', `${g.getAttribute('aria-label') || ''}, ${t(landed ? 'learn.landedHere' : 'learn.sownHere')}`);
      }
      g.classList.add(landed ? 'landed' : 'sown-into');
    });

    const buttons = [];
    if (!offering) {
      if (legal.includes('pass')) buttons.push(h('button', { type: 'button', id: 'lesson-pass', onclick: () => play('pass') }, t('game.pass')));
      if (legal.includes('accept')) buttons.push(h('button', { type: 'button', id: 'lesson-accept', onclick: () => play('accept') }, t('learn.accept')));
      if (legal.includes('decline')) buttons.push(h('button', { type: 'button', id: 'lesson-decline', onclick: () => play('decline') }, t('learn.decline')));
      if (offers.length) buttons.push(h('button', { type: 'button', id: 'lesson-offer', onclick: () => { offering = true; focusAfter = 'board'; render(); } }, t('learn.offer')));
    } else {
      const token = offerToken(chosen);
      const ok = chosen.size > 0 && offers.includes(token);
      buttons.push(h('button', { type: 'button', class: 'primary', id: 'lesson-send-offer', disabled: !ok, onclick: () => play(token) }, t('learn.sendOffer')));
      buttons.push(h('button', { type: 'button', class: 'ghost', id: 'lesson-cancel-offer', onclick: () => { offering = false; chosen = new Set(); render(); } }, t('learn.cancelOffer')));
    }

    /** @type {(Node|string)[]} */
    const feedback = [];
    let fbClass = 'lesson-feedback';
    if (offering) feedback.push(t('learn.offerHelp'));
    if (last && status === 'met') {
      fbClass += ' met';
      feedback.push(h('strong', null, t('learn.met')), ' ', t(`learn.${id}.done`));
    } else if (last && status === 'missed') {
      fbClass += ' missed';
      feedback.push(h('strong', null, t('learn.missed')), ' ', missText(last.miss || { kind: '' }), ' ', t(`learn.${id}.hint`));
    } else if (last && status === 'continue') {
      feedback.push(t(`learn.${id}.then`));
    }
    if (last) for (const r of last.replies) feedback.push(' ', replyText(r));
    if (last && last.result) {
      const [a, b] = last.result.seeds;
      feedback.push(' ', t('learn.result', { a, b }));
      if (last.result.without_glory) feedback.push(' ', t('learn.withoutGlory'));
    }
    if (hinted && !last) feedback.push(t(`learn.${id}.hint`));

    const after = [];
    if (status === 'met' || status === 'missed' || actions.length) {
      after.push(h('button', { type: 'button', id: 'lesson-retry', onclick: () => { open(current, false); focusAfter = 'board'; render(); } }, t('learn.retry')));
    }
    if (!last && !hinted) {
      after.push(h('button', { type: 'button', class: 'ghost', id: 'lesson-hint', onclick: () => { hinted = true; focusAfter = 'lesson-feedback'; render(); } }, t('learn.hint')));
    }
    if (status === 'met' && current + 1 < list.length) {
      after.push(h('button', { type: 'button', class: 'primary', id: 'lesson-next', onclick: () => { open(current + 1, true); render(); } }, t('learn.next')));
    }
    after.push(h('button', { type: 'button', class: 'ghost', id: 'lesson-list', onclick: () => { open(-1, false); current = -1; focusAfter = 'learn-title'; render(); } }, t('learn.back')));

    const done = progress().done.includes(id);
    return h('section', { class: 'card lesson', 'aria-labelledby': 'lesson-title', 'data-lesson': id, 'data-status': status },
      h('p', { class: 'hint lesson-count' }, t('learn.count', { n: current + 1, total: list.length }), done ? ` · ${t('learn.done')}` : ''),
      h('h1', { id: 'lesson-title', tabindex: '-1' }, t(`learn.${id}.title`)),
      h('p', { class: 'lesson-text' }, t(`learn.${id}.text`)),
      h('p', { class: 'lesson-goal' }, h('strong', null, t('learn.goal')), ' ', t(`learn.${id}.goal`)),
      h('div', { class: 'lesson-board' }, board.svg),
      buttons.length ? h('div', { class: 'button-row lesson-actions' }, ...buttons) : null,
      h('p', { class: fbClass, id: 'lesson-feedback', tabindex: '-1' }, ...feedback),
      h('div', { class: 'button-row' }, ...after));
  }

  function render() {
    main.textContent = '';
    document.title = `Goré · ${t('nav.learn')}`;
    if (loadError && !lessons) {
      main.append(h('section', { class: 'card' }, h('h1', null, t('learn.title')), h('p', { role: 'alert' }, loadError)));
      return;
    }
    if (!lessons) {
      main.append(h('p', { class: 'loading' }, t('learn.loading')));
      return;
    }
    if (current >= 0 && lessons[current]) {
      const l = lessons[current];
      document.title = `Goré · ${t(`learn.${l.id}.title`)}`;
      main.append(lessonView());
    } else {
      main.append(listView());
    }
    if (loadError) { main.append(h('p', { role: 'alert', class: 'lesson-error' }, loadError)); loadError = null; }
    if (focusAfter) {
      const id = focusAfter;
      focusAfter = null;
      if (id.startsWith('hole:') && board && current >= 0) {
        board.focusHole(id.slice(5));
      } else if (id === 'board') {
        const rover = main.querySelector('#board [tabindex="0"]');
        if (rover) /** @type {any} */ (rover).focus();
      } else {
        const el = document.getElementById(id);
        if (el) el.focus();
      }
    }
  }

  load();
  return { render };
}
