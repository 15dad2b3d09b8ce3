// @ts-check
// The game page: the board, the turn, the negotiation, the end, the move
// list and the review of a finished game. The server's state decides
// everything (`legal` says what may be played); the page only shows it,
// animating each new action from the previous position to the next.

import { ApiError, LiveGame, getGame, myGames, newDeviceLink, postAction, recordUrl, rematch, rememberGame, revokeDeviceLinks } from './api.js';
import { Animator, animateAction, savedSpeed, saveSpeed } from './anim.js';
import { Board } from './board.js';
import { announce, copyButton, h, linkField, toast } from './dom.js';
import { errorText } from './errors.js';
import { HOLES, capturedHoles, offerToken, other, parseAction, parseGpn, ruleOptions } from './gpn.js';
import { t, tlist, tn } from './i18n.js';

/**
 * @typedef {import('./gpn.js').Pos} Pos
 * @typedef {{ply: number, player: 'A'|'B', action: string, captured: any[], position: string}} Entry
 */

/** @param {HTMLElement} main @param {string} id */
export function gamePage(main, id) {
  /** @type {any} */
  let state = null;
  /** Actions already shown on the board. */
  let shownCount = 0;
  let animating = false;
  /** @type {Animator|null} */
  let anim = null;
  /** 'play' | 'offer' */
  let mode = 'play';
  /** @type {Set<string>} */
  let selected = new Set();
  let confirmDecline = false;
  let sending = false;
  /** Review position index when the game is over (0 = start). @type {number|null} */
  let review = null;
  let connStatus = 'connecting';
  let retryMs = 0;
  /** @type {LiveGame|null} */
  let live = null;
  /** @type {string|null} */
  let loadError = null;
  let destroyed = false;
  let pollTimer = 0;
  /** The ply an action was sent over the socket at, until its update or error. @type {number|null} */
  let pendingPly = null;
  let pendingTimer = 0;
  /** A full state was asked for after a gap in the updates. */
  let resyncing = false;
  /** The server said its database failed: it shows the game, plays nothing. */
  let unavailable = false;
  /** The "continue on another device" link, once made; 'revoked' after a revocation. @type {string|null} */
  let deviceUrl = null;
  let deviceBusy = false;
  /**
   * For tests: every state and update the page received, and what it did
   * with it (applied or ignored), as `window.goreTrace`.
   * @type {Array<{kind: string, since?: number, ply: number, added: number, applied: boolean}>}
   */
  const trace = [];
  /** For tests: the ply of every action drawn on the board, as `window.goreShown`. @type {number[]} */
  const shown = [];
  /** @type {any} */ (window).goreTrace = trace;
  /** @type {any} */ (window).goreShown = shown;

  const board = new Board({ interactive: true, onHole });
  /** @type {Record<string, HTMLElement>} */
  let el = {};

  // ----- helpers on the state -----

  const pos = () => parseGpn(state.position);
  const start = () => parseGpn(state.start);
  const rules = () => ruleOptions(state.rules);
  /** What you may play now: the server's `legal`, and only on your turn
   *  (a shared update must not let a spectator or the other seat click). */
  const legal = () => {
    if (!state) return /** @type {string[]} */ ([]);
    const me = state.you;
    if (me !== 'both' && (me !== 'A' && me !== 'B' || (state.to_move && state.to_move !== me))) return [];
    return /** @type {string[]} */ (state.legal || []);
  };
  const you = () => (state ? state.you : null);
  const isOver = () => state && state.status === 'over';
  /** The number of actions a state or update has. @param {any} s */
  const plyOf = (s) => (typeof s.ply === 'number' ? s.ply : s.actions.length);
  /** Whether you hold a seat (A, B, or both on one device). */
  const seated = () => you() === 'A' || you() === 'B' || you() === 'both';

  /** The position after action k (1-based); 0 is the start. @param {number} k */
  function posAfter(k) {
    if (k <= 0) return start();
    const e = state.actions[k - 1];
    return parseGpn(e.position);
  }

  /** Positions to step through when reviewing: start, each action, and the swept end if it differs. */
  function reviewSteps() {
    const n = state.actions.length;
    const steps = [];
    for (let k = 0; k <= n; k++) steps.push({ pos: posAfter(k), entry: k ? state.actions[k - 1] : null, k });
    if (isOver() && n && state.actions[n - 1].position !== state.position) {
      steps.push({ pos: pos(), entry: null, k: n, sweep: true });
    }
    return steps;
  }

  /** @param {'A'|'B'} p */
  function playerName(p) {
    if (!state) return p;
    const seat = state.seats && state.seats[p];
    if (you() === p) return t('player.you');
    if (seat && seat.kind === 'ai') return t('player.computer', { level: seat.level || '?' });
    if (state.mode === 'friend') return you() ? t('player.friend') : t('player.player', { player: p });
    return t('player.player', { player: p });
  }

  /** Whether the AI plays p. @param {'A'|'B'} p */
  const isAi = (p) => !!(state.seats && state.seats[p] && state.seats[p].kind === 'ai');

  // ----- building the page -----

  function render() {
    document.title = `Goré · ${t('game.title')}`;
    main.textContent = '';
    if (loadError) {
      main.append(h('section', { class: 'card' }, h('h1', null, t('game.notFound')), h('p', null, loadError), h('p', null, h('a', { href: '/' }, t('notFound.home')))));
      return;
    }
    if (!state) {
      main.append(h('p', { class: 'loading' }, t('common.loading')));
      return;
    }
    board.svg.setAttribute('aria-label', t('board.label'));
    el = {
      title: h('h1', { id: 'game-title' }),
      conn: h('div', { id: 'conn', class: 'conn', role: 'status' }),
      players: h('div', { class: 'players', id: 'players' }),
      turn: h('p', { id: 'turn', class: 'turn' }),
      invite: h('div', { id: 'invite', class: 'card invite', hidden: true }),
      notice: h('div', { id: 'notice', class: 'notice', hidden: true }),
      unavailable: h('p', { id: 'unavailable', class: 'warning', role: 'alert', hidden: true }),
      incoming: h('section', { id: 'incoming-offer', class: 'offer-box', hidden: true, 'aria-labelledby': 'incoming-title' }),
      boardWrap: h('div', { class: 'board-wrap', id: 'board-wrap' }, board.svg),
      controls: h('div', { id: 'controls', class: 'controls' }),
      offerPanel: h('section', { id: 'offer-panel', class: 'offer-box outgoing', hidden: true, 'aria-labelledby': 'offer-panel-title' }),
      result: h('section', { id: 'result', class: 'result card', hidden: true, 'aria-labelledby': 'result-title' }),
      review: h('div', { id: 'review', class: 'review', hidden: true, role: 'group' }),
      moves: h('ol', { id: 'moves', class: 'moves' }),
      links: h('div', { class: 'game-links' }),
      devices: h('details', { id: 'devices', class: 'card settings devices', hidden: true }),
      devicesBody: h('div', { id: 'devices-body' }),
    };
    el.devices.append(h('summary', { id: 'devices-summary' }, t('device.title')), el.devicesBody);
    const speed = h('select', { id: 'anim-speed', onchange: (/** @type {Event} */ e) => saveSpeed(/** @type {HTMLSelectElement} */ (e.target).value) });
    for (const s of ['slow', 'normal', 'fast', 'off']) speed.append(h('option', { value: s, selected: savedSpeed() === s }, t(`settings.speed.${s}`)));
    el.page = h('div', { class: 'game-page', id: 'game-page' },
      h('div', { class: 'game-top' }, el.title, el.conn),
      el.players,
      el.turn,
      el.invite,
      el.unavailable,
      el.notice,
      el.incoming,
      el.boardWrap,
      el.controls,
      el.offerPanel,
      el.result,
      el.review,
      h('section', { class: 'card moves-card', 'aria-labelledby': 'moves-title' },
        h('h2', { id: 'moves-title' }, t('game.moves')),
        el.moves),
      h('details', { class: 'card settings' },
        h('summary', null, t('settings.title')),
        h('label', { class: 'field', for: 'anim-speed' }, h('span', null, t('settings.speed')), speed)),
      el.devices,
      el.links,
    );
    main.append(el.page);
    updateDevices();
    update();
  }

  /** Refreshes every part of the page from the state. */
  function update() {
    if (!state || !el.title) return;
    const focused = document.activeElement;
    const p = pos();
    el.title.textContent = t(`mode.${state.mode}`) + (state.rules && state.rules !== 'standard' ? ` · ${state.rules}` : '');
    updateConn();
    updatePlayers(animating ? posAfter(shownCount) : isOver() ? displayedPos() : p);
    updateTurn(p);
    updateInvite();
    updateNotice(p);
    el.unavailable.hidden = !unavailable;
    el.unavailable.textContent = unavailable ? t('error.unavailable') : '';
    el.devices.hidden = !seated();
    updateIncoming(p);
    updateControls();
    updateOfferPanel(p);
    updateResult();
    updateReview();
    updateMoves();
    updateLinks();
    if (!animating) drawBoard();
    // For tests and styles: what the page shows.
    el.page.dataset.ply = String(shownCount);
    el.page.dataset.status = state.status;
    el.page.dataset.busy = animating || sending ? '1' : '0';
    el.page.dataset.you = String(you());
    el.page.dataset.thinking = state.thinking ? '1' : '0';
    el.boardWrap.classList.toggle('thinking', !!state.thinking && !animating && !isOver());
    // Focus that was on a removed control goes back to the board or the turn line.
    if (focused && focused !== document.body && !focused.isConnected) {
      const first = main.querySelector('.hole[aria-disabled="false"]');
      const target = /** @type {HTMLElement|SVGElement|null} */ (first || el.turn);
      if (target) {
        if (target === el.turn) el.turn.setAttribute('tabindex', '-1');
        /** @type {any} */ (target).focus();
      }
    }
  }

  function updateConn() {
    const c = el.conn;
    c.className = `conn conn-${connStatus}`;
    c.textContent = '';
    const text = connStatus === 'open' ? t('conn.open') : connStatus === 'connecting' ? t('conn.connecting') : t('conn.closed', { s: Math.max(1, Math.round(retryMs / 1000)) });
    c.append(h('span', { class: 'dot', 'aria-hidden': 'true' }), h('span', { class: 'conn-text' }, text));
    if (connStatus === 'closed') c.append(h('button', { type: 'button', class: 'ghost small', onclick: () => live && live.connectNow() }, t('conn.retry')));
  }

  /** @param {Pos} p */
  function updatePlayers(p) {
    el.players.textContent = '';
    for (const pl of /** @type {('A'|'B')[]} */ (['A', 'B'])) {
      const toMove = !isOver() && state.status === 'playing' && p.toMove === pl;
      el.players.append(h('div', { class: `player player-${pl}${toMove ? ' to-move' : ''}`, id: `player-${pl}` },
        h('span', { class: `swatch swatch-${pl}`, 'aria-hidden': 'true' }, pl),
        h('span', { class: 'player-name' }, playerName(pl)),
        h('span', { class: 'player-score' }, t('game.captured', { n: p.captured[pl] })),
        toMove ? h('span', { class: 'to-move-mark' }, t('game.toMoveMark')) : null,
        state.declined && state.declined[pl] ? h('span', { class: 'declined-mark', title: t('game.declinedTitle') }, t('game.declinedMark')) : null));
    }
  }

  /** @param {Pos} p */
  function updateTurn(p) {
    let s;
    const me = you();
    const L = legal();
    if (state.status === 'waiting') s = t('status.waitingFriend');
    else if (animating) s = t('status.animating');
    else if (isOver()) s = t('status.over');
    else if (sending) s = t('status.sending');
    else if (L.length) {
      const who = me === 'both' ? t('status.playerPrefix', { player: p.toMove }) : '';
      if (L.includes('accept')) s = who + t('status.answerOffer');
      else if (L.includes('pass')) s = who + t('status.mustPass');
      else s = who + (me === 'both' ? t('status.chooseHole') : t('status.yourTurn', { player: p.toMove }));
    } else if (isAi(p.toMove)) {
      // `thinking` comes from the server: the AI has this game in hand (or
      // waits for a thread); an older server does not say, so think.
      s = state.thinking === false ? t('status.aiToMove', { player: p.toMove }) : t('status.aiThinking', { player: p.toMove });
    }
    else if (me === 'A' || me === 'B') s = t('status.waitingOpponent', { player: p.toMove });
    else s = t('status.toMove', { player: p.toMove });
    el.turn.textContent = s;
    el.turn.classList.toggle('your-turn', L.length > 0 && !animating);
    el.turn.classList.toggle('thinking', !!state.thinking && !animating && !isOver() && !L.length);
    // The tab's title says when it is your turn.
    document.title = `${L.length > 0 && !isOver() ? '● ' : ''}Goré · ${t('game.title')}`;
  }

  function updateInvite() {
    const mine = myGames().find((g) => g.id === id);
    const waiting = state.status === 'waiting';
    el.invite.hidden = !waiting;
    el.invite.textContent = '';
    if (!waiting) return;
    if (mine && mine.invite) {
      const url = new URL(mine.invite, location.origin).href;
      const input = linkField('invite-link', url, 'invite-title');
      el.invite.append(
        h('h2', { id: 'invite-title' }, t('invite.title')),
        h('p', null, t('invite.text')),
        h('div', { class: 'invite-row' }, input, copyButton('copy-invite', url, input)),
      );
      if ('share' in navigator) el.invite.append(h('button', { type: 'button', class: 'ghost', onclick: () => navigator.share({ title: 'Goré', text: t('invite.shareText'), url }).catch(() => undefined) }, t('invite.share')));
    } else {
      el.invite.append(h('p', null, t('status.waitingFriend')));
    }
  }

  /** A message about the other player's last action (pass, answer to an offer). @param {Pos} p */
  function updateNotice(p) {
    el.notice.hidden = true;
    el.notice.textContent = '';
    if (animating || !state.actions.length || isOver()) return;
    const last = /** @type {Entry} */ (state.actions[state.actions.length - 1]);
    const me = you();
    const mine = me === last.player;
    let msg = null;
    if (last.action === 'pass') msg = t('notice.passed', { player: last.player });
    else if (last.action === 'decline') {
      msg = t('notice.declined', { player: last.player, offerer: other(last.player) });
      if (!mine) msg += ' ' + t('notice.declinedGlory', { player: last.player });
    } else if (last.action === 'accept') {
      const prev = posAfter(state.actions.length - 1);
      msg = t('notice.accepted', { player: last.player, holes: tlist(prev.offer), n: 6 * prev.offer.length });
    } else if (last.action.startsWith('offer:') && p.offer.length && !legal().includes('accept')) {
      msg = me === last.player ? t('notice.yourOfferWaiting', { holes: tlist(p.offer), player: p.toMove }) : t('notice.offerWaiting', { from: last.player, holes: tlist(p.offer), player: p.toMove });
    }
    if (msg && (!mine || last.action.startsWith('offer:') || me === 'both')) {
      el.notice.hidden = false;
      el.notice.textContent = msg;
    }
  }

  /** The pending offer, when you must answer it. @param {Pos} p */
  function updateIncoming(p) {
    const box = el.incoming;
    box.textContent = '';
    const show = !animating && !sending && legal().includes('accept') && p.offer.length > 0;
    box.hidden = !show;
    if (!show) { confirmDecline = false; return; }
    const from = other(p.toMove);
    const to = p.toMove;
    const price = 6 * p.offer.length;
    const toName = you() === 'both' ? to : null;
    box.append(
      h('h2', { id: 'incoming-title' }, toName ? t('offer.incomingTo', { from, to, holes: tlist(p.offer) }) : t('offer.incoming', { from, holes: tlist(p.offer) })),
      h('p', null, t('offer.incomingExplain', { n: price, have: p.captured[to], player: to })));
    if (!confirmDecline) {
      box.append(h('p', { class: 'muted' }, t('offer.declineNote')),
        h('div', { class: 'button-row' },
          h('button', { type: 'button', class: 'primary', id: 'accept-btn', onclick: () => act('accept') }, t('offer.accept')),
          h('button', { type: 'button', id: 'decline-btn', onclick: () => { confirmDecline = true; update(); focusEl('confirm-decline-btn'); } }, t('offer.decline'))));
    } else {
      box.append(
        h('p', { class: 'warning', id: 'glory-warning', role: 'alert' }, t('offer.gloryWarning')),
        h('div', { class: 'button-row' },
          h('button', { type: 'button', class: 'danger', id: 'confirm-decline-btn', onclick: () => { confirmDecline = false; act('decline'); } }, t('offer.declineAnyway')),
          h('button', { type: 'button', id: 'cancel-decline-btn', onclick: () => { confirmDecline = false; update(); focusEl('decline-btn'); } }, t('offer.back'))));
    }
  }

  function updateControls() {
    const c = el.controls;
    c.textContent = '';
    const L = legal();
    if (animating) {
      c.append(h('button', { type: 'button', id: 'skip-btn', onclick: () => anim && anim.skip() }, t('game.skip')));
      return;
    }
    if (isOver() || sending) return;
    const offers = L.filter((a) => a.startsWith('offer:'));
    if (offers.length && mode !== 'offer') {
      c.append(h('button', { type: 'button', id: 'offer-btn', onclick: () => { mode = 'offer'; selected = new Set(); update(); focusEl('offer-panel-title'); } }, t('offer.open')));
    }
    if (L.includes('pass')) {
      c.append(h('button', { type: 'button', id: 'pass-btn', class: 'primary', onclick: () => act('pass') }, t('game.pass')));
    }
  }

  /** The holes you may put in an offer. */
  function offerableHoles() {
    const set = new Set();
    for (const a of legal()) if (a.startsWith('offer:')) for (const hh of a.slice(6).split(',')) set.add(hh);
    return HOLES.filter((x) => set.has(x));
  }

  /** @param {Pos} p */
  function updateOfferPanel(p) {
    const box = el.offerPanel;
    box.textContent = '';
    const offers = legal().filter((a) => a.startsWith('offer:'));
    if (mode === 'offer' && (!offers.length || animating || isOver())) mode = 'play';
    box.hidden = mode !== 'offer';
    if (mode !== 'offer') return;
    const me = p.toMove;
    const opp = other(me);
    const holes = HOLES.filter((x) => selected.has(x));
    const token = offerToken(holes);
    const ok = holes.length > 0 && legal().includes(token);
    const price = 6 * holes.length;
    let why = '';
    if (!ok) {
      const mineCount = p.controllers.filter((c) => c === me).length;
      if (!holes.length) why = t('offer.whyNone');
      else if (holes.length > 3) why = t('offer.whyTooMany');
      else if (p.captured[opp] < price) why = t('offer.whyCannotPay', { player: opp, have: p.captured[opp], n: price });
      else if (holes.length >= mineCount && !rules().cedeAll) why = t('offer.whyKeepOne');
      else why = t('offer.whyNotAllowed');
    }
    box.append(
      h('h2', { id: 'offer-panel-title', tabindex: '-1' }, t('offer.title')),
      h('p', null, t('offer.help', { player: opp })),
      h('p', { id: 'offer-summary', class: 'offer-summary' },
        holes.length ? t('offer.summary', { holes: tlist(holes), n: price, player: opp, have: p.captured[opp] }) : t('offer.summaryNone', { player: opp, have: p.captured[opp] })),
      h('p', { id: 'offer-legal', class: ok ? 'ok' : 'bad', 'aria-live': 'polite' }, ok ? t('offer.legal') : why),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'primary', id: 'send-offer-btn', disabled: !ok, onclick: () => { if (ok) { mode = 'play'; act(token); } } }, t('offer.send')),
        h('button', { type: 'button', id: 'cancel-offer-btn', onclick: () => { mode = 'play'; selected = new Set(); update(); focusEl('offer-btn'); } }, t('offer.cancel'))));
  }

  function updateResult() {
    const box = el.result;
    box.textContent = '';
    const r = state.result;
    box.hidden = !(isOver() && r && !animating);
    if (box.hidden) return;
    const me = you();
    let headline;
    if (!r.winner) headline = t('result.draw');
    else if (me === 'A' || me === 'B') headline = r.winner === me ? t('result.youWin') : t('result.youLose');
    else headline = t('result.winner', { player: r.winner });
    const rm = state.rematch;
    const mineRematch = rm && myGames().some((g) => g.id === rm.id);
    let rematchButton = null;
    if (rm && mineRematch) rematchButton = h('a', { class: 'button primary', id: 'rematch-link', href: rm.url || `/g/${rm.id}` }, t('result.openRematch'));
    else if (me) rematchButton = h('button', { type: 'button', class: 'primary', id: 'rematch-btn', onclick: doRematch }, rm ? t('result.joinRematch') : t('result.rematch'));
    box.append(...[
      h('h2', { id: 'result-title' }, t('result.title')),
      h('p', { class: 'final-score', id: 'final-score' },
        h('span', { class: 'score-A' }, `A ${r.seeds[0]}`), ' – ', h('span', { class: 'score-B' }, `${r.seeds[1]} B`)),
      h('p', { class: 'headline', id: 'result-headline' }, headline, r.winner && (me === 'A' || me === 'B') ? ` (${t('result.winner', { player: r.winner })})` : ''),
      r.without_glory ? h('p', { class: 'without-glory', id: 'without-glory' }, h('span', { class: 'glory-badge', 'aria-hidden': 'true' }, '☾'), ' ', t('result.withoutGlory', { player: r.winner })) : null,
      h('p', { class: 'muted' }, t(`result.reason.${r.reason || 'board'}`)),
      rm && !mineRematch && me ? h('p', { class: 'notice', id: 'rematch-offer' }, t('result.rematchWaiting')) : null,
      h('div', { class: 'button-row' },
        rematchButton,
        h('a', { class: 'button', id: 'download-btn', href: recordUrl(id), download: `gore-${id}.gore` }, t('result.download'))),
    ].filter((x) => x !== null));
  }

  function updateReview() {
    const box = el.review;
    box.textContent = '';
    box.hidden = !isOver() || animating;
    if (box.hidden) return;
    const steps = reviewSteps();
    const last = steps.length - 1;
    if (review === null || review > last) review = last;
    const i = review;
    const step = steps[i];
    let label;
    if (i === 0) label = t('review.start');
    else if (step.sweep) label = t('review.sweep');
    else label = t('review.move', { k: step.k, n: state.actions.length, action: step.entry.action, player: step.entry.player });
    box.setAttribute('aria-label', t('review.title'));
    const btn = (/** @type {string} */ idName, /** @type {string} */ key, /** @type {string} */ sym, /** @type {number} */ to, /** @type {boolean} */ disabled) => h('button', { type: 'button', id: idName, class: 'icon', 'aria-label': t(key), title: t(key), disabled, onclick: () => goReview(to) }, icon(sym));
    box.append(
      h('h2', { class: 'sr-only' }, t('review.title')),
      btn('review-first', 'review.first', 'first', 0, i === 0),
      btn('review-prev', 'review.prev', 'prev', i - 1, i === 0),
      h('span', { class: 'review-label', id: 'review-label', 'aria-live': 'polite' }, label),
      btn('review-next', 'review.next', 'next', i + 1, i === last),
      btn('review-last', 'review.last', 'last', last, i === last),
      h('p', { class: 'hint review-hint' }, t('review.keys')));
  }

  /** A small arrow icon (SVG, so that no font is needed). @param {string} kind */
  function icon(kind) {
    const paths = {
      first: 'M5 4h2v12H5zM17 4v12L8 10z',
      prev: 'M15 4v12L6 10z',
      next: 'M5 4v12l9-6z',
      last: 'M13 4h2v12h-2zM3 4v12l9-6z',
    };
    const span = h('span', { 'aria-hidden': 'true', class: 'icon-svg' });
    span.innerHTML = `<svg viewBox="0 0 20 20" width="20" height="20"><path fill="currentColor" d="${paths[/** @type {keyof typeof paths} */ (kind)]}"/></svg>`;
    return span;
  }

  /** @param {number} k */
  function goReview(k) {
    const steps = reviewSteps();
    review = Math.max(0, Math.min(steps.length - 1, k));
    update();
  }

  function updateMoves() {
    const ol = el.moves;
    ol.textContent = '';
    const n = state.actions.length;
    const current = isOver() ? currentReviewAction() : shownCount;
    if (!n) ol.append(h('li', { class: 'muted none' }, t('game.noMoves')));
    for (let k = 1; k <= n; k++) {
      const e = /** @type {Entry} */ (state.actions[k - 1]);
      const before = posAfter(k - 1);
      const after = posAfter(k);
      const gain = e.action.length === 2 ? after.captured[e.player] - before.captured[e.player] : 0;
      const shown = k <= shownCount || isOver();
      if (!shown) continue;
      const content = [h('span', { class: 'ply' }, `${k}.`), ' ', h('span', { class: `tok tok-${e.player}` }, e.action)];
      if (gain > 0) content.push(' ', h('span', { class: 'gain', title: t('game.capturedN', { n: gain }) }, `×${gain}`));
      const li = h('li', { class: `move move-${e.player}${k === current ? ' current' : ''}`, 'data-ply': k });
      if (isOver()) li.append(h('button', { type: 'button', class: 'move-btn', 'aria-label': describe(e, before, after), onclick: () => goReview(k) }, ...content));
      else { li.append(...content); li.setAttribute('title', describe(e, before, after)); }
      ol.append(li);
    }
    // Keep the current move in sight inside the list (without scrolling the page).
    const cur = /** @type {HTMLElement|null} */ (ol.querySelector('.current') || ol.lastElementChild);
    if (cur) {
      const top = cur.offsetTop - ol.offsetTop;
      if (top < ol.scrollTop || top + cur.offsetHeight > ol.scrollTop + ol.clientHeight) {
        ol.scrollTop = Math.max(0, top - ol.clientHeight / 2);
      }
    }
  }

  function currentReviewAction() {
    if (review === null) return state.actions.length;
    const steps = reviewSteps();
    const s = steps[Math.min(review, steps.length - 1)];
    return s.sweep ? -1 : s.k;
  }

  function updateLinks() {
    el.links.textContent = '';
    el.links.append(
      h('a', { href: '/' }, t('nav.home')),
      h('a', { href: recordUrl(id), download: `gore-${id}.gore`, id: 'record-link' }, t('result.download')),
      h('a', { href: '/rules' }, t('nav.rules')));
  }

  /** The position on the board: the review step's once the game is over. */
  function displayedPos() {
    if (isOver() && review !== null) {
      const steps = reviewSteps();
      return steps[Math.min(review, steps.length - 1)].pos;
    }
    return pos();
  }

  /** Draws the board for the current state (or review step). */
  function drawBoard() {
    if (isOver() && review !== null) {
      const steps = reviewSteps();
      const s = steps[Math.min(review, steps.length - 1)];
      board.render(s.pos, s.entry ? marksFor(s.entry, s.pos) : { offered: s.pos.offer });
      return;
    }
    const p = pos();
    const last = state.actions.length ? state.actions[state.actions.length - 1] : null;
    const marks = last ? marksFor(last, p) : { offered: p.offer };
    if (!sending && !isOver()) {
      if (mode === 'offer') {
        marks.selectable = offerableHoles();
        marks.selected = [...selected];
      } else {
        marks.legal = legal().filter((a) => HOLES.includes(a));
      }
    }
    board.render(p, marks);
  }

  /** @param {Entry} entry @param {Pos} p @returns {import('./board.js').Marks} */
  function marksFor(entry, p) {
    const a = parseAction(entry.action);
    return { origin: a.kind === 'sow' ? a.hole : null, captured: capturedHoles(entry), offered: p.offer };
  }

  // ----- acting -----

  /** @param {string} hole */
  function onHole(hole) {
    if (animating || sending || !state) return;
    if (mode === 'offer') {
      if (!offerableHoles().includes(hole)) return;
      if (selected.has(hole)) selected.delete(hole);
      else selected.add(hole);
      update();
      return;
    }
    if (legal().includes(hole)) act(hole);
  }

  /**
   * Plays an action: over the socket when it is open (the answer is the
   * update every socket receives, or an error to this one), else by HTTP
   * (the answer is the whole state).
   * @param {string} action
   */
  async function act(action) {
    if (sending || !state) return;
    if (!legal().includes(action)) {
      toast(t('error.notLegal', { action }));
      return;
    }
    const ply = plyOf(state);
    sending = true;
    mode = 'play';
    update();
    if (live && live.send(action, ply)) {
      pendingPly = ply;
      clearTimeout(pendingTimer);
      // Neither the update nor an error (a socket that died quietly): ask.
      pendingTimer = window.setTimeout(async () => {
        if (pendingPly !== ply || destroyed) return;
        endPending();
        try { onState(await getGame(id), 'get'); } catch (_) { /* the socket or the poll will bring it */ }
        if (!animating) update();
      }, 8000);
      return;
    }
    try {
      const s = await postAction(id, action, ply);
      sending = false;
      onState(s, 'post');
      // The answer may be older than a state the socket already brought.
      if (!animating) update();
    } catch (e) {
      sending = false;
      refused(/** @type {ApiError} */ (e));
      try { onState(await getGame(id), 'get'); } catch (_) { /* the socket will bring it */ }
      if (!animating) update();
    }
  }

  /** The action sent over the socket is answered (or given up on). */
  function endPending() {
    pendingPly = null;
    clearTimeout(pendingTimer);
    sending = false;
  }

  /** Says why an action was refused. @param {{code?: string, message?: string}} err */
  function refused(err) {
    if (err.code === 'stale') toast(t('error.stale'));
    else if (err.code === 'unavailable') {
      unavailable = true;
      toast(t('error.unavailable'));
    } else toast(t('error.action', { message: errorText(err) }));
  }

  /** An error on the socket: the answer to our action, or another refusal. @param {{code: string, message: string}} err */
  function onSocketError(err) {
    const mine = pendingPly !== null;
    endPending();
    refused(err);
    // A refused action may mean the page is behind: get the whole state.
    if (mine && (err.code === 'stale' || err.code === 'forbidden' || err.code === 'illegal_action' || err.code === 'game_over')) {
      if (!(live && live.resync())) getGame(id).then((s) => onState(s, 'get'), () => undefined);
    }
    if (!animating) update();
  }

  async function newDevice() {
    if (deviceBusy) return;
    deviceBusy = true;
    updateDevices();
    try {
      const res = await newDeviceLink(id);
      deviceUrl = new URL(res.url, location.origin).href;
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
    deviceBusy = false;
    updateDevices();
    focusEl(deviceUrl ? 'device-link' : 'device-btn');
  }

  async function revokeDevices() {
    if (deviceBusy) return;
    deviceBusy = true;
    updateDevices();
    try {
      await revokeDeviceLinks(id);
      deviceUrl = 'revoked';
      toast(t('device.revoked'));
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
    deviceBusy = false;
    updateDevices();
    focusEl('device-btn');
  }

  /** The "continue on another device" box (rebuilt only when it changes, so focus stays). */
  function updateDevices() {
    const box = el.devicesBody;
    if (!box) return;
    box.textContent = '';
    box.append(h('p', null, t('device.text')));
    if (deviceUrl && deviceUrl !== 'revoked') {
      const input = linkField('device-link', deviceUrl, 'devices-summary');
      box.append(
        h('div', { class: 'invite-row' }, input, copyButton('copy-device', deviceUrl, input)),
        h('p', { class: 'muted' }, t('device.warning')),
        h('div', { class: 'button-row' },
          h('button', { type: 'button', class: 'danger', id: 'revoke-device', disabled: deviceBusy, onclick: revokeDevices }, t('device.revoke'))));
    } else {
      if (deviceUrl === 'revoked') box.append(h('p', { class: 'notice', id: 'device-revoked' }, t('device.revoked')));
      box.append(h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'primary', id: 'device-btn', disabled: deviceBusy, onclick: newDevice }, t('device.create'))));
    }
  }

  async function doRematch() {
    try {
      const res = await rematch(id);
      rememberGame({ id: res.id, mode: state.mode, seat: res.seat, invite: res.invite });
      location.assign(res.url || `/g/${res.id}`);
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
  }

  /** @param {string} idName */
  function focusEl(idName) {
    const x = document.getElementById(idName);
    if (x) x.focus();
  }

  // ----- the state and its animation -----

  /**
   * A whole state (the socket's first, a resync, an HTTP answer, a poll):
   * taken when it is newer than the page's, or as new with a different
   * head; an older or identical one is left (no second render).
   * @param {any} s
   * @param {string} kind where it came from, for the trace
   */
  function onState(s, kind) {
    if (destroyed || !s || s.id !== id || !Array.isArray(s.actions)) return;
    const ply = plyOf(s);
    if (kind === 'socket') resyncing = false;
    if (state) {
      const have = plyOf(state);
      const same = ply === have && JSON.stringify(headOf(s)) === JSON.stringify(headOf(state));
      if (ply < have || same) {
        trace.push({ kind, ply, added: 0, applied: false });
        return;
      }
    }
    const added = state ? ply - plyOf(state) : 0;
    trace.push({ kind, ply, added, applied: true });
    take(s);
  }

  /**
   * An update from the socket: applied when it follows the page's state
   * (`since` is its ply), its new part taken when it overlaps, ignored when
   * the page already has it, and a gap asks for the whole state.
   * @param {any} u
   */
  function onUpdate(u) {
    if (destroyed || !u || u.id !== id || !state || !Array.isArray(u.actions)) return;
    const have = plyOf(state);
    const since = Number(u.since);
    if (since > have) {
      trace.push({ kind: 'update', since, ply: u.ply, added: 0, applied: false });
      if (!resyncing && live && live.resync()) resyncing = true;
      return;
    }
    if (since < have && u.ply <= have) {
      trace.push({ kind: 'update', since, ply: u.ply, added: 0, applied: false });
      return;
    }
    const fresh = u.actions.filter((/** @type {Entry} */ e) => e.ply > have);
    /** @type {any} */
    const next = { ...state, ...headOf(u), actions: state.actions.concat(fresh) };
    trace.push({ kind: 'update', since, ply: plyOf(next), added: fresh.length, applied: true });
    take(next);
  }

  /** What changes with each action: a state or an update without id and log. @param {any} s */
  function headOf(s) {
    const { id: _id, mode: _mode, rules: _rules, start: _start, you: _you, actions: _actions, since: _since, ...head } = s;
    return head;
  }

  /** Shows a new state. @param {any} s */
  function take(s) {
    const firstTime = !state;
    const before = state ? plyOf(state) : 0;
    state = s;
    if (pendingPly !== null && plyOf(s) > pendingPly) endPending();
    if (plyOf(s) > before) unavailable = false;
    if (s.you && s.you !== 'spectator') rememberGame({ id, mode: s.mode, seat: s.you });
    if (firstTime) {
      shownCount = s.actions.length;
      render();
      return;
    }
    if (shownCount > s.actions.length) shownCount = s.actions.length;
    if (selected.size && !legal().some((a) => a.startsWith('offer:'))) { selected = new Set(); mode = 'play'; }
    if (!animating) catchUp();
    else update();
  }

  async function catchUp() {
    if (animating) return;
    let lastSaid = '';
    animating = true;
    anim = new Animator(savedSpeed());
    update();
    try {
      while (!destroyed && shownCount < state.actions.length) {
        const k = shownCount + 1;
        const behind = state.actions.length - shownCount;
        const e = /** @type {Entry} */ (state.actions[k - 1]);
        const prev = posAfter(k - 1);
        const isLast = k === state.actions.length;
        const next = isLast && isOver() ? pos() : posAfter(k);
        // Far behind (a reconnection, a hidden tab): show the older actions at once.
        const a = behind > 2 || document.hidden ? new Animator('off') : anim;
        if (anim.skipped) a.skip();
        try {
          await animateAction(board, prev, next, e.action, capturedHoles(e), rules(), a);
        } catch (err) {
          console.warn('animation', err);
        }
        board.clearFx();
        shownCount = k;
        shown.push(k);
        lastSaid = describe(e, prev, posAfter(k));
        announce(lastSaid);
        if (!anim.skipped) updateMoves();
      }
    } finally {
      animating = false;
      anim = null;
      board.clearFx();
    }
    if (destroyed) return;
    if (isOver()) {
      review = null;
      const r = state.result;
      if (r) announce(resultText(r));
    }
    update();
    // Then whose turn it is, when it is yours.
    if (!isOver() && legal().length && lastSaid) announce(`${lastSaid} ${el.turn.textContent || ''}`);
    if (shownCount < state.actions.length) catchUp();
  }

  /** @param {any} r */
  function resultText(r) {
    let s = t('result.announce', { a: r.seeds[0], b: r.seeds[1] }) + ' ';
    s += r.winner ? t('result.winner', { player: r.winner }) : t('result.draw');
    if (r.without_glory) s += ' ' + t('result.withoutGlory', { player: r.winner });
    return s;
  }

  /** A sentence for an action. @param {Entry} e @param {Pos} before @param {Pos} after */
  function describe(e, before, after) {
    const a = parseAction(e.action);
    const pl = e.player;
    if (a.kind === 'sow') {
      const holes = capturedHoles(e);
      const gain = after.captured[pl] - before.captured[pl];
      let s = t('describe.sow', { player: pl, hole: a.hole, seeds: tn('seeds', before.holes[HOLES.indexOf(a.hole)]) });
      if (holes.length || gain > 0) s += ' ' + t('describe.capture', { player: pl, seeds: tn('seeds', gain), holes: tlist(holes) });
      return s;
    }
    if (a.kind === 'offer') return t('describe.offer', { player: pl, to: other(pl), holes: tlist(a.holes), n: 6 * a.holes.length });
    if (a.kind === 'accept') return t('describe.accept', { player: pl, holes: tlist(before.offer), n: 6 * before.offer.length });
    if (a.kind === 'decline') return t('describe.decline', { player: pl });
    return t('describe.pass', { player: pl });
  }

  // ----- keyboard: stepping through a finished game -----

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (!state || !isOver() || animating) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const steps = reviewSteps();
    const cur = review === null ? steps.length - 1 : review;
    let to = null;
    if (e.key === 'ArrowLeft') to = cur - 1;
    else if (e.key === 'ArrowRight') to = cur + 1;
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = steps.length - 1;
    if (to === null) return;
    e.preventDefault();
    goReview(to);
    const label = document.getElementById('review-label');
    if (label) announce(label.textContent || '');
  }
  document.addEventListener('keydown', onKey);

  // ----- start -----

  function startLive() {
    live = new LiveGame(id, {
      onState: (s) => onState(s, 'socket'),
      onUpdate,
      onError: onSocketError,
      onStatus: (s, ms) => {
        connStatus = s;
        retryMs = ms || 0;
        if (el.conn) updateConn();
        schedulePoll();
      },
    });
  }

  // While the socket is down, poll now and then so that the game goes on.
  function schedulePoll() {
    clearTimeout(pollTimer);
    if (destroyed || connStatus === 'open') return;
    pollTimer = window.setTimeout(async () => {
      if (destroyed || connStatus === 'open') return;
      try { onState(await getGame(id), 'poll'); } catch (_) { /* the socket's retry goes on */ }
      schedulePoll();
    }, 3000);
  }

  (async () => {
    try {
      const s = await getGame(id);
      onState(s, 'get');
      startLive();
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      loadError = err.code === 'not_found' ? t('game.notFoundText') : (errorText(err) || String(e));
      render();
    }
  })();

  return {
    render: () => {
      if (anim) anim.skip();
      render();
    },
    destroy: () => {
      destroyed = true;
      clearTimeout(pollTimer);
      clearTimeout(pendingTimer);
      document.removeEventListener('keydown', onKey);
      if (live) live.close();
      if (anim) anim.skip();
    },
  };
}
