// @ts-check
// The game page's views: each function draws one part of the page from the
// store (game.js owns the store, the socket and the actions). They change
// the interface state only through the callbacks in the context.

import { myGames, recordUrl } from './api.js';
import { botMark, copyButton, h, linkField } from './dom.js';
import { HOLES, capturedHoles, offerToken, other, parseAction, ruleOptions } from './gpn.js';
import { gameKind, rulesText, t, tlist, tn } from './i18n.js';
import { formatLeft, isLow, leftNow } from './clock.js';

/**
 * @typedef {import('./store.js').GameStore} GameStore
 * @typedef {import('./store.js').Entry} Entry
 * @typedef {import('./wire.js').GameState} GameState
 * @typedef {import('./wire.js').ResultView} ResultView
 * @typedef {import('./gpn.js').Pos} Pos
 * @typedef {'A'|'B'} Player
 * @typedef {{
 *   store: GameStore,
 *   el: Record<string, HTMLElement>,
 *   board: import('./board.js').Board,
 *   id: string,
 *   act: (action: string) => void,
 *   ui: (change: (s: GameStore) => void, focus?: string) => void,
 *   skip: () => void,
 *   retry: () => void,
 *   rematch: () => void,
 *   resign: () => void,
 *   abort: () => void,
 *   berserk: () => void,
 *   claim: () => void,
 *   command: (name: string) => void,
 *   clockAt: number,
 *   takeback: () => void,
 *   answerTakeback: (accept: boolean) => void,
 *   newDevice: () => void,
 *   revokeDevices: () => void,
 *   sweeping: boolean,
 * }} Ctx
 */

/** A player's name as this page's viewer says it. @param {GameStore} st @param {Player} p */
export function playerName(st, p) {
  const s = st.s;
  if (!s) return p;
  const seat = s.seats && s.seats[p];
  if (seat && seat.kind === 'human' && seat.name) return st.you === p ? t('player.youNamed', { name: seat.name }) : seat.name;
  if (st.you === p) return t('player.you');
  if (seat && seat.kind === 'ai') {
    if (seat.perfect) return t('player.computerPerfect');
    return seat.level ? t('player.computer', { name: t(`level.${seat.level}.name`), level: seat.level }) : t('player.computerLevel', { level: '?' });
  }
  if (s.mode === 'friend' && st.seated) return t('player.friend');
  return t('player.player', { player: p });
}

/** The move list's words for an action, in the player's language. @param {Entry} e */
export function moveWords(e) {
  const a = parseAction(e.action);
  if (a.kind === 'sow') return a.hole;
  if (a.kind === 'offer') return t('moves.offer', { holes: tlist(a.holes) });
  return t(`moves.${a.kind}`);
}

/** A sentence for an action. @param {Entry} e @param {Pos} before @param {Pos} after */
export function describe(e, before, after) {
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

/** The sentence of a result, for the live region. @param {ResultView} r */
export function resultText(r) {
  let s = t('result.announce', { a: r.seeds[0], b: r.seeds[1] }) + ' ';
  s += r.winner ? t('result.winner', { player: r.winner }) : t('result.draw');
  // Only a winner is without glory.
  if (r.without_glory) s += ' ' + t('result.withoutGlory', { player: /** @type {Player} */ (r.winner) });
  return s;
}

/** What the final sweep gives each player, in words. @param {GameStore} st */
export function sweepText(st) {
  const sw = st.swept();
  return sw ? t('status.sweep', { a: sw[0], b: sw[1] }) : t('review.sweep');
}

/** @param {Ctx} c */
export function viewTitle(c) {
  // The views draw once the page has a state (game.js).
  const s = /** @type {GameState} */ (c.store.s);
  c.el.title.textContent = gameKind(s) + (s.rules && s.rules !== 'standard' ? ` · ${rulesText(s.rules)}` : '');
}

/** @param {Ctx} c */
export function viewConn(c) {
  const st = c.store;
  const box = c.el.conn;
  // A finished game is not live: no dot (a lost connection still shows,
  // for the rematch).
  box.hidden = st.over && st.conn !== 'closed';
  box.className = `conn conn-${st.conn}`;
  box.textContent = '';
  const text = st.conn === 'open' ? t('conn.open') : st.conn === 'connecting' ? t('conn.connecting') : t('conn.closed', { s: Math.max(1, Math.round(st.retryMs / 1000)) });
  box.append(h('span', { class: 'dot', 'aria-hidden': 'true' }), h('span', { class: 'conn-text' }, text));
  if (st.conn === 'closed') box.append(h('button', { type: 'button', class: 'ghost small', onclick: c.retry }, t('conn.retry')));
}

/** @param {Ctx} c @param {Pos} p the position shown @param {number} k the actions shown */
export function viewPlayers(c, p, k) {
  const st = c.store;
  const s = /** @type {GameState} */ (st.s);
  const box = c.el.players;
  box.textContent = '';
  // Your own first (it is the row at the bottom of the board).
  const bottom = st.bottom();
  for (const pl of /** @type {Player[]} */ ([other(bottom), bottom])) {
    const toMove = !st.over && s.status === 'playing' && p.toMove === pl;
    const declined = st.declinedBy(pl, k);
    const seat = s.seats && s.seats[pl];
    box.append(h('div', { class: `player player-${pl}${toMove ? ' to-move' : ''}`, id: `player-${pl}` },
      h('span', { class: `swatch swatch-${pl}`, 'aria-hidden': 'true' }, pl),
      h('span', { class: 'player-name', title: playerName(st, pl) }, playerName(st, pl)),
      seat && seat.kind === 'human' && seat.bot ? botMark(`bot-${pl}`) : null,
      seat && seat.kind === 'human' && seat.rating ? ratingView(seat, pl) : null,
      h('span', { class: 'player-score' }, t('game.captured', { n: p.captured[pl] })),
      // Always there, hidden when not to move, so that the box keeps its size.
      h('span', { class: `to-move-mark${toMove ? '' : ' off'}`, 'aria-hidden': toMove ? null : 'true' }, t('game.toMoveMark')),
      declined ? h('span', { class: 'declined-mark', title: t('game.declinedTitle') }, t('game.declinedMark')) : null,
      s.berserk && s.berserk[pl] ? h('span', { class: 'berserk-mark', id: `berserk-${pl}`, title: t('berserk.hint') }, t('berserk.mark')) : null,
      s.clock ? h('span', { class: 'clock', id: `clock-${pl}`, role: 'timer', 'aria-live': 'off' }) : null));
  }
  viewClocks(c);
}

/** A rating change as players read it: `+162`, `−162` (a minus sign), `±0`. @param {number} n */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '\u00b10';
}

/**
 * A player card's rating: the rating the game began with, or once the
 * game is rated, the new one and the change (as lichess shows it).
 * @param {import('./wire.js').HumanSeat} seat @param {Player} pl
 */
function ratingView(seat, pl) {
  const rc = seat.rating_change;
  if (!rc) return h('span', { class: 'player-rating', id: `rating-${pl}` }, seat.rating);
  return h('span', { class: 'player-rating', id: `rating-${pl}`, title: t('game.ratingAfter', { after: rc.after, change: signed(rc.change) }) },
    rc.after, ' ', h('span', { class: `rating-diff ${rc.change < 0 ? 'down' : 'up'}`, id: `rating-diff-${pl}` }, signed(rc.change)));
}

/** In a timed game, the opponent may be claimed against after this (ms). */
const LEAVE_MS = 60_000;

/**
 * The opponent left: how long ago, and (a timed game, after 60 s; an
 * untimed one, when the server allows it) the button to claim the win.
 * @param {Ctx} c
 */
export function viewAway(c) {
  const st = c.store;
  const s = /** @type {GameState} */ (st.s);
  const box = c.el.awayNote;
  if (!box) return;
  const me = st.you;
  const opp = me === 'A' ? 'B' : me === 'B' ? 'A' : null;
  const since = opp && s.away ? s.away[opp] : null;
  const show = !!opp && since !== null && since !== undefined && !st.over && s.status === 'playing' && s.mode === 'friend';
  box.hidden = !show;
  if (!show) {
    if (box.textContent) box.textContent = '';
    return;
  }
  const gone = since + (performance.now() - c.clockAt);
  const days = s.clock && /d$/.test(s.clock.control);
  const wait = s.clock && !days ? Math.max(0, Math.ceil((LEAVE_MS - gone) / 1000)) : 0;
  const key = days ? 'away.days' : wait > 0 ? 'away.wait' : 'away.claim';
  const text = t(key, { s: wait });
  const line = box.querySelector('.away-text');
  if (line && line.textContent === text && (wait > 0 || days) === !box.querySelector('#claim-btn')) return;
  box.textContent = '';
  box.append(h('span', { class: 'away-text' }, text));
  if (!days && wait === 0) box.append(' ', h('button', { type: 'button', class: 'small primary', id: 'claim-btn', onclick: c.claim }, t('away.claimButton')));
}

/**
 * The clocks' figures now, counted down from the last state (called
 * several times a second); the note of a first move still to make.
 * Returns the time the viewer has left when it is his clock that runs.
 * @param {Ctx} c
 */
export function viewClocks(c) {
  const st = c.store;
  const clock = st.s && st.s.clock;
  const note = c.el.clockNote;
  if (!clock) {
    if (note) note.hidden = true;
    return null;
  }
  const elapsed = performance.now() - c.clockAt;
  let mine = null;
  for (const p of /** @type {Player[]} */ (['A', 'B'])) {
    const box = document.getElementById(`clock-${p}`);
    if (!box) continue;
    const left = leftNow(clock, p, elapsed);
    const text = formatLeft(left, clock.control);
    if (box.textContent !== text) box.textContent = text;
    box.setAttribute('aria-label', t('clock.label', { player: playerName(st, p), time: text }));
    box.classList.toggle('running', clock.running === p);
    box.classList.toggle('low', isLow(left, clock.control) && !st.over);
    if (clock.running === p && st.you === p) mine = left;
  }
  if (note) {
    const deadline = clock.deadline_in;
    const firstMove = !st.over && clock.due === 'abort' && deadline != null && /** @type {GameState} */ (st.s).to_move;
    note.hidden = !firstMove;
    if (firstMove && deadline != null) {
      const secs = Math.max(0, Math.ceil((deadline - elapsed) / 1000));
      const who = playerName(st, firstMove);
      const text = clock.running ? t('clock.firstMoveDays', { player: who }) : t('clock.firstMove', { player: who, s: secs });
      if (note.textContent !== text) note.textContent = text;
    }
  }
  return mine;
}

/**
 * Why a hole may not be played now, in a sentence.
 * @param {Ctx} c @param {string} hole
 */
export function whyNot(c, hole) {
  const st = c.store;
  const p = st.pos;
  const L = st.playable();
  const i = HOLES.indexOf(hole);
  if (!L.length) return t('why.notNow', { hole, status: c.el.turn ? c.el.turn.textContent || '' : '' });
  if (st.mode === 'offer') return t('why.notOfferable', { hole });
  if (L.includes('accept')) return t('why.answerFirst');
  if (L.includes('pass')) return t('why.mustPass');
  if (i >= 0 && p.controllers[i] !== p.toMove) return t('why.notYours', { hole, player: playerName(st, /** @type {Player} */ (p.controllers[i])) });
  if (i >= 0 && p.holes[i] === 0) return t('why.empty', { hole });
  return t('why.notNow', { hole, status: c.el.turn ? c.el.turn.textContent || '' : '' });
}

/** The status line: one sentence of what to do now (its height is fixed, see app.css). @param {Ctx} c */
export function viewTurn(c) {
  const st = c.store;
  const s = /** @type {GameState} */ (st.s);
  const p = st.pos;
  const me = st.you;
  const L = st.legal();
  const offer = st.canOffer();
  const who = me === 'both' ? t('status.playerPrefix', { player: p.toMove }) : '';
  let text;
  if (s.status === 'waiting') text = st.seated ? t('status.waitingFriend') : t('status.watchingWaiting');
  else if (c.sweeping) text = sweepText(st);
  else if (st.animating) text = t('status.animating');
  else if (st.over) text = t('status.over');
  else if (st.sending) text = t('status.sending');
  else if (st.offline && L.length) text = t('status.offline');
  else if (st.mode === 'offer' && L.length) text = who + t('status.offerMode');
  else if (L.length) {
    if (L.includes('accept')) text = who + t('status.answerOffer');
    else if (L.includes('pass')) text = who + t(offer ? 'status.mustPass' : 'status.mustPassNoOffer');
    else if (me === 'both') text = who + t(offer ? 'status.chooseHole' : 'status.chooseHoleNoOffer');
    else text = t(offer ? 'status.yourTurnOrOffer' : 'status.yourTurn', { player: p.toMove });
  } else if (!st.seated) text = t('status.watching', { player: p.toMove });
  else if (st.isAi(p.toMove)) {
    // `thinking` comes from the server: the AI has this game in hand (or
    // waits for a thread); an older server does not say, so think.
    text = s.thinking === false ? t('status.aiToMove', { player: p.toMove }) : t('status.aiThinking', { player: p.toMove });
  } else text = t('status.waitingOpponent', { player: playerName(st, p.toMove) });
  const turn = c.el.turn;
  turn.textContent = text;
  const yours = L.length > 0 && !st.animating && !st.over;
  turn.classList.toggle('your-turn', yours);
  turn.classList.toggle('thinking', !!s.thinking && !st.animating && !st.over && !L.length);
  turn.classList.toggle('offline', st.offline);
  return yours;
}

/** @param {Ctx} c */
export function viewInvite(c) {
  const st = c.store;
  const box = c.el.invite;
  const mine = myGames().find((g) => g.id === c.id);
  const waiting = /** @type {GameState} */ (st.s).status === 'waiting' && st.seated;
  box.hidden = !waiting;
  box.textContent = '';
  if (!waiting) return;
  if (mine && mine.invite) {
    const url = new URL(mine.invite, location.origin).href;
    const input = linkField('invite-link', url, 'invite-title');
    box.append(
      h('h2', { id: 'invite-title' }, t('invite.title')),
      h('p', null, t('invite.text')),
      h('div', { class: 'invite-row' }, input, copyButton('copy-invite', url, input)),
    );
    if ('share' in navigator) box.append(h('button', { type: 'button', class: 'ghost', onclick: () => navigator.share({ title: 'Goré', text: t('invite.shareText'), url }).catch(() => undefined) }, t('invite.share')));
  } else {
    box.append(h('p', null, t('status.waitingFriend')));
  }
}

/**
 * What the other side just did that the board does not show by itself: a
 * pass, an answer to an offer (also when the AI declined and then sowed),
 * an offer waiting for its answer.
 * @param {Ctx} c
 */
export function viewNotice(c) {
  const st = c.store;
  const box = c.el.notice;
  box.hidden = true;
  box.textContent = '';
  if (st.animating || !st.entries.length || st.over) return;
  const me = st.you;
  const run = st.lastRun();
  const by = run[0].player;
  const mine = me === by;
  const p = st.pos;
  /** @type {string[]} */
  const msgs = [];
  for (const e of run) {
    const k = e.ply;
    if (e.action === 'pass') msgs.push(t('notice.passed', { player: by }));
    else if (e.action === 'decline') {
      msgs.push(t('notice.declined', { player: by, offerer: other(by) }));
      if (!mine) msgs.push(t('notice.declinedGlory', { player: by }));
    } else if (e.action === 'accept') {
      const prev = st.posAfter(k - 1);
      msgs.push(t('notice.accepted', { player: by, holes: tlist(prev.offer), n: 6 * prev.offer.length }));
    }
  }
  const last = run[run.length - 1];
  const offerWaiting = last.action.startsWith('offer:') && p.offer.length && !st.legal().includes('accept');
  if (offerWaiting) {
    msgs.push(mine ? t('notice.yourOfferWaiting', { holes: tlist(p.offer), player: p.toMove }) : t('notice.offerWaiting', { from: by, holes: tlist(p.offer), player: p.toMove }));
  }
  // (One device is never `mine`: a run is one player's.)
  if (msgs.length && (!mine || offerWaiting)) {
    box.hidden = false;
    box.textContent = msgs.join(' ');
  }
}

/** The pending offer, when you must answer it (below the board: it never pushes the board). @param {Ctx} c */
export function viewIncoming(c) {
  const st = c.store;
  const box = c.el.incoming;
  box.textContent = '';
  const p = st.pos;
  const show = !st.animating && !st.sending && st.legal().includes('accept') && p.offer.length > 0;
  box.hidden = !show;
  if (!show) { st.confirmDecline = false; return; }
  const from = other(p.toMove);
  const to = p.toMove;
  const price = 6 * p.offer.length;
  const toName = st.you === 'both' ? to : null;
  const off = st.offline;
  box.append(h('h2', { id: 'incoming-title' }, toName ? t('offer.incomingTo', { from, to, holes: tlist(p.offer) }) : t('offer.incoming', { from, holes: tlist(p.offer) })));
  if (!st.confirmDecline) {
    box.append(
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'primary', id: 'accept-btn', disabled: off, onclick: () => c.act('accept') }, t('offer.accept')),
        h('button', { type: 'button', id: 'decline-btn', disabled: off, onclick: () => c.ui((s) => { s.confirmDecline = true; }, 'confirm-decline-btn') }, t('offer.decline'))),
      h('p', null, tn('offer.incomingExplain', p.offer.length, { n: price, have: p.captured[to] })),
      h('p', { class: 'muted' }, t('offer.declineNote')));
  } else {
    box.append(
      h('p', { class: 'warning', id: 'glory-warning', role: 'alert' }, t('offer.gloryWarning')),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'danger', id: 'confirm-decline-btn', disabled: off, onclick: () => { st.confirmDecline = false; c.act('decline'); } }, t('offer.declineAnyway')),
        h('button', { type: 'button', id: 'cancel-decline-btn', onclick: () => c.ui((s) => { s.confirmDecline = false; }, 'decline-btn') }, t('offer.back'))));
  }
}

/** The buttons under the board: skip, offer, pass, and the game's own (flip, takeback, resign). @param {Ctx} c */
export function viewControls(c) {
  const st = c.store;
  const box = c.el.controls;
  box.textContent = '';
  const L = st.legal();
  if (st.animating) {
    box.append(h('button', { type: 'button', id: 'skip-btn', onclick: c.skip }, t('game.skip')));
    return;
  }
  if (st.over || st.sending) return;
  const off = st.offline;
  if (st.canOffer() && st.mode !== 'offer') {
    box.append(h('button', { type: 'button', id: 'offer-btn', disabled: off, onclick: () => c.ui((s) => { s.mode = 'offer'; s.selected = new Set(); }, 'offer-first') }, t('offer.open')));
  }
  if (L.includes('pass')) {
    box.append(h('button', { type: 'button', id: 'pass-btn', class: 'primary', disabled: off, onclick: () => c.act('pass') }, t('game.pass')));
  }
}

/** The page's tools beside the board: turning it, takeback, resign. @param {Ctx} c */
export function viewTools(c) {
  const st = c.store;
  const box = c.el.tools;
  box.textContent = '';
  const me = st.you;
  // Spectators and one device may turn the board; a seated player sees his row at the bottom.
  if (me !== 'A' && me !== 'B') {
    box.append(h('button', { type: 'button', class: 'ghost small', id: 'flip-btn', 'aria-pressed': st.flipped ? 'true' : 'false', onclick: () => c.ui((s) => { s.flipped = !s.flipped; }, 'flip-btn') }, t('game.flip')));
  }
  const s = /** @type {GameState} */ (st.s);
  // A finished game opens in the analysis board at the ply shown (the link
  // contract of /analysis): not during play, where it would be help.
  if (st.over && s) {
    const q = new URLSearchParams({ rules: String(s.rules), gpn: s.start, line: st.entries.map((e) => e.action).join(' '), ply: String(st.shownPly()) });
    box.append(h('a', { class: 'button ghost small', id: 'analyse-link', href: `/analysis?${q}` }, t('analysis.open')));
  }
  if (!st.seated || st.over || s.status !== 'playing') return;
  const mine = st.entries.some((e) => me === 'both' || e.player === me);
  const asked = s.takeback;
  // The server says it knows takebacks and resigning by sending `takeback` (null or who asks).
  const modern = 'takeback' in s;
  if (modern) {
    if (asked && asked !== me && me !== 'both') {
      box.append(h('span', { class: 'takeback-ask', id: 'takeback-asked' }, t('takeback.asked', { player: asked }),
        h('button', { type: 'button', class: 'small primary', id: 'takeback-yes', onclick: () => c.answerTakeback(true) }, t('takeback.grant')),
        h('button', { type: 'button', class: 'small', id: 'takeback-no', onclick: () => c.answerTakeback(false) }, t('takeback.refuse'))));
    } else if (asked && asked === me) {
      box.append(h('span', { class: 'muted', id: 'takeback-waiting' }, t('takeback.waiting')));
    } else if (mine) {
      const friend = s.mode === 'friend';
      box.append(h('button', { type: 'button', class: 'ghost small', id: 'takeback-btn', disabled: st.sending || st.animating, onclick: c.takeback }, t(friend ? 'takeback.ask' : 'takeback.do')));
    }
  }
  if ((me === 'A' || me === 'B') && s.berserkable && s.berserkable[me]) {
    box.append(h('button', { type: 'button', class: 'small danger', id: 'berserk-btn', title: t('berserk.hint'), disabled: st.sending, onclick: c.berserk }, t('berserk.button')));
  }
  // Give time (lichess's +15 s): a game between people whose clock of minutes runs.
  if ((me === 'A' || me === 'B') && s.mode === 'friend' && s.clock && s.clock.running && !s.clock.control.endsWith('d')) {
    box.append(h('button', { type: 'button', class: 'ghost small', id: 'give-time-btn', title: t('giveTime.hint'), 'aria-label': t('giveTime.hint'), disabled: st.sending, onclick: () => c.command('give-time') }, t('giveTime.button')));
  }
  if (s.abortable && me !== 'both') {
    box.append(h('button', { type: 'button', class: 'ghost small', id: 'abort-btn', disabled: st.sending, onclick: c.abort }, t('abort.button')));
  }
  if (modern) {
    if (!st.confirmResign) {
      box.append(h('button', { type: 'button', class: 'ghost small', id: 'resign-btn', onclick: () => c.ui((x) => { x.confirmResign = true; }, 'resign-no') }, t('resign.button')));
    } else {
      box.append(h('span', { class: 'resign-ask', role: 'alert' }, t('resign.confirm'),
        h('button', { type: 'button', class: 'small danger', id: 'resign-yes', onclick: c.resign }, t('resign.yes')),
        h('button', { type: 'button', class: 'small', id: 'resign-no', onclick: () => c.ui((x) => { x.confirmResign = false; }, 'resign-btn') }, t('resign.no'))));
    }
  }
}

/** @param {Ctx} c */
export function viewOfferPanel(c) {
  const st = c.store;
  const box = c.el.offerPanel;
  box.textContent = '';
  if (st.mode === 'offer' && (!st.canOffer() || st.animating || st.over)) st.mode = 'play';
  box.hidden = st.mode !== 'offer';
  if (st.mode !== 'offer') return;
  const p = st.pos;
  const me = p.toMove;
  const opp = other(me);
  const holes = HOLES.filter((x) => st.selected.has(x));
  const token = offerToken(holes);
  const ok = holes.length > 0 && st.legal().includes(token) && !st.offline;
  const price = 6 * holes.length;
  let why = '';
  if (!ok) {
    const mineCount = p.controllers.filter((x) => x === me).length;
    if (!holes.length) why = t('offer.whyNone');
    else if (holes.length > 3) why = t('offer.whyTooMany');
    else if (p.captured[opp] < price) why = t('offer.whyCannotPay', { player: opp, have: p.captured[opp], n: price });
    else if (holes.length >= mineCount && !ruleOptions(/** @type {GameState} */ (st.s).rules).cedeAll) why = t('offer.whyKeepOne');
    else if (st.offline) why = t('status.offline');
    else why = t('offer.whyNotAllowed');
  }
  box.append(
    h('h2', { id: 'offer-panel-title' }, t('offer.title')),
    h('p', { id: 'offer-summary', class: 'offer-summary' },
      holes.length ? t('offer.summary', { holes: tlist(holes), n: price, player: opp, have: p.captured[opp] }) : t('offer.summaryNone', { player: opp, have: p.captured[opp] })),
    h('p', { id: 'offer-legal', class: ok ? 'ok' : 'bad', 'aria-live': 'polite' }, ok ? t('offer.legal') : why),
    h('div', { class: 'button-row' },
      h('button', { type: 'button', class: 'primary', id: 'send-offer-btn', disabled: !ok, onclick: () => { if (ok) { st.mode = 'play'; c.act(token); } } }, t('offer.send')),
      h('button', { type: 'button', id: 'cancel-offer-btn', onclick: () => c.ui((s) => { s.mode = 'play'; s.selected = new Set(); }, 'offer-btn') }, t('offer.cancel'))),
    h('p', { class: 'hint' }, t('offer.help', { player: opp })));
}

/**
 * The result: the score and the winner line (right under the board), and
 * its details (why it ended, the sweep, rematch and record) after the
 * review's step buttons, so that both are in sight on a phone.
 * @param {Ctx} c
 */
export function viewResult(c) {
  const st = c.store;
  const box = c.el.result;
  const more = c.el.resultMore;
  box.textContent = '';
  more.textContent = '';
  const s = /** @type {GameState} */ (st.s);
  // Shown only with a result (`hidden` returns before any use without one).
  const r = /** @type {ResultView} */ (s.result);
  box.hidden = !(st.over && r && !st.animating);
  more.hidden = box.hidden;
  if (box.hidden) return;
  const me = st.you;
  let headline;
  if (r.reason === 'abort') headline = t('result.aborted');
  else if (!r.winner) headline = t('result.draw');
  else if (me === 'A' || me === 'B') headline = r.winner === me ? t('result.youWin') : t('result.youLose');
  else headline = t('result.winner', { player: r.winner });
  const rm = s.rematch;
  const mineRematch = rm && myGames().some((g) => g.id === rm.id);
  let rematchButton = null;
  if (rm && mineRematch) rematchButton = h('a', { class: 'button primary', id: 'rematch-link', href: rm.url || `/g/${rm.id}` }, t('result.openRematch'));
  else if (me) rematchButton = h('button', { type: 'button', class: 'primary', id: 'rematch-btn', onclick: c.rematch }, rm ? t('result.joinRematch') : t('result.rematch'));
  const reason = r.reason || 'board';
  const sw = st.swept();
  box.append(...[
    h('h2', { id: 'result-title' }, t('result.title')),
    h('p', { class: 'final-score', id: 'final-score' },
      h('span', { class: 'score-A' }, `A ${r.seeds[0]}`), ' – ', h('span', { class: 'score-B' }, `${r.seeds[1]} B`)),
    h('p', { class: 'headline', id: 'result-headline' }, headline, r.winner && (me === 'A' || me === 'B') && r.winner !== me ? ` (${t('result.winner', { player: r.winner })})` : ''),
    r.without_glory ? h('p', { class: 'without-glory', id: 'without-glory' }, h('span', { class: 'glory-badge', 'aria-hidden': 'true' }, '☾'), ' ', t('result.withoutGlory', { player: /** @type {Player} */ (r.winner) })) : null,
    ratingChanges(st),
  ].filter((x) => x !== null));
  more.append(...[
    h('p', { class: 'muted', id: 'result-reason' }, t(`result.reason.${reason}`, { player: r.winner ? other(r.winner) : '' }),
      reason === 'repetition' ? ` ${t('result.repetitionWhat')}` : '',
      sw && !['resign', 'time', 'left', 'abort'].includes(reason) ? ` ${t('result.sweptSeeds', { a: tn('seeds', sw[0]), b: tn('seeds', sw[1]) })}` : ''),
    rm && !mineRematch && me ? h('p', { class: 'notice', id: 'rematch-offer' }, t('result.rematchWaiting')) : null,
    h('div', { class: 'button-row' },
      rematchButton,
      h('a', { class: 'button', id: 'download-btn', href: recordUrl(c.id), download: `gore-${c.id}.gore` }, t('result.download')),
      reason !== 'abort' ? h('a', { class: 'button', id: 'review-btn', href: `/review/${encodeURIComponent(c.id)}` }, t('gamereview.open')) : null),
  ].filter((x) => x !== null));
}

/**
 * A rated game's end: each player's new rating and its change, or a word
 * that they are being computed (the server sends them a moment later).
 * @param {GameStore} st
 */
function ratingChanges(st) {
  const s = /** @type {GameState} */ (st.s);
  if (!s.rated || !s.result || s.result.reason === 'abort') return null;
  const rows = [];
  for (const p of /** @type {Player[]} */ (['A', 'B'])) {
    const seat = s.seats[p];
    if (seat.kind !== 'human' || !seat.rating_change) continue;
    const rc = seat.rating_change;
    rows.push(h('li', { id: `rating-change-${p}` },
      t('result.ratingChange', { name: playerName(st, p), after: rc.after }), ' ',
      h('span', { class: `rating-diff ${rc.change < 0 ? 'down' : 'up'}` }, signed(rc.change))));
  }
  if (!rows.length) return h('p', { class: 'muted', id: 'rating-changes' }, t('result.ratingPending'));
  return h('ul', { class: 'rating-changes', id: 'rating-changes' }, ...rows);
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

/** @param {Ctx} c @param {(k: number) => void} go */
export function viewReview(c, go) {
  const st = c.store;
  const box = c.el.review;
  box.textContent = '';
  box.hidden = !st.over || st.animating;
  if (box.hidden) return;
  const { steps, i, step } = st.reviewStep();
  const last = steps.length - 1;
  st.review = i;
  let label;
  if (i === 0) label = t('review.start');
  else if (step.sweep) label = sweepText(st);
  else if (step.entry) label = t('review.move', { k: step.k, n: st.entries.length, action: moveWords(step.entry), player: step.entry.player });
  box.setAttribute('aria-label', t('review.title'));
  const btn = (/** @type {string} */ idName, /** @type {string} */ key, /** @type {string} */ sym, /** @type {number} */ to, /** @type {boolean} */ disabled) => h('button', { type: 'button', id: idName, class: 'icon', 'aria-label': t(key), title: t(key), disabled, onclick: () => go(to) }, icon(sym));
  box.append(
    h('h2', { class: 'sr-only' }, t('review.title')),
    btn('review-first', 'review.first', 'first', 0, i === 0),
    btn('review-prev', 'review.prev', 'prev', i - 1, i === 0),
    h('span', { class: 'review-label', id: 'review-label', 'aria-live': 'polite' }, label),
    btn('review-next', 'review.next', 'next', i + 1, i === last),
    btn('review-last', 'review.last', 'last', last, i === last),
    h('p', { class: 'hint review-hint' }, t('review.keys')));
}

/** @param {Ctx} c @param {(k: number) => void} go */
export function viewMoves(c, go) {
  const st = c.store;
  const ol = c.el.moves;
  ol.textContent = '';
  const n = st.entries.length;
  const over = st.over && !st.animating;
  let current = st.shownCount;
  if (over) {
    const { step } = st.reviewStep();
    current = step.sweep ? -1 : step.k;
  }
  if (!n) ol.append(h('li', { class: 'muted none' }, t('game.noMoves')));
  for (let k = 1; k <= n; k++) {
    if (!(k <= st.shownCount || over)) continue;
    const e = st.entries[k - 1];
    const before = st.posAfter(k - 1);
    const after = st.posAfter(k);
    const gain = e.action.length === 2 ? after.captured[e.player] - before.captured[e.player] : 0;
    const words = moveWords(e);
    const content = [h('span', { class: 'ply' }, `${k}.`), ' ', h('span', { class: `tok tok-${e.player}`, 'data-action': e.action }, words)];
    if (gain > 0) content.push(' ', h('span', { class: 'gain', title: t('game.capturedN', { n: gain }) }, `×${gain}`));
    const li = h('li', { class: `move move-${e.player}${k === current ? ' current' : ''}`, 'data-ply': k });
    // The notation on hover: the record's token and the sentence.
    const title = `${e.action} — ${describe(e, before, after)}`;
    // The button's name starts with what it shows ("3. b2 ×4"), then says it in full.
    const name = `${k}. ${words}${gain > 0 ? ` ×${gain}` : ''}: ${describe(e, before, after)}`;
    if (over) li.append(h('button', { type: 'button', class: 'move-btn', 'aria-label': name, title, onclick: () => go(k) }, ...content));
    else { li.append(...content); li.setAttribute('title', title); }
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

/** The page's links (the header already has Home). @param {Ctx} c */
export function viewLinks(c) {
  c.el.links.textContent = '';
  // Once the result shows, its own button downloads the record.
  const resultShown = !c.el.result.hidden;
  if (!resultShown) c.el.links.append(h('a', { href: recordUrl(c.id), download: `gore-${c.id}.gore`, id: 'record-link' }, t('result.download')));
  c.el.links.append(h('a', { href: '/rules' }, t('nav.rules')));
}

/** The "continue on another device" box. @param {Ctx} c */
export function viewDevices(c) {
  const st = c.store;
  const box = c.el.devicesBody;
  box.textContent = '';
  box.append(h('p', null, t('device.text')));
  if (st.deviceUrl && st.deviceUrl !== 'revoked') {
    const input = linkField('device-link', st.deviceUrl, 'devices-summary');
    box.append(
      h('div', { class: 'invite-row' }, input, copyButton('copy-device', st.deviceUrl, input)),
      h('p', { class: 'muted' }, t('device.warning')),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', class: 'danger', id: 'revoke-device', disabled: st.deviceBusy, onclick: c.revokeDevices }, t('device.revoke'))));
  } else {
    if (st.deviceUrl === 'revoked') box.append(h('p', { class: 'notice', id: 'device-revoked' }, t('device.revoked')));
    box.append(h('div', { class: 'button-row' },
      h('button', { type: 'button', class: 'primary', id: 'device-btn', disabled: st.deviceBusy, onclick: c.newDevice }, t('device.create'))));
  }
}

/** @param {Entry} entry @param {Pos} p @returns {import('./board.js').Marks} */
export function marksFor(entry, p) {
  const a = parseAction(entry.action);
  return { origin: a.kind === 'sow' ? a.hole : null, captured: capturedHoles(entry), offered: p.offer };
}

/** Draws the board for the current state (or review step). @param {Ctx} c */
export function drawBoard(c) {
  const st = c.store;
  const board = c.board;
  board.setBottom(st.bottom());
  if (st.over) {
    const { step } = st.reviewStep();
    board.render(step.pos, step.entry ? marksFor(step.entry, step.pos) : { offered: step.pos.offer });
    return;
  }
  const p = st.pos;
  const list = st.entries;
  const last = list.length ? list[list.length - 1] : null;
  const marks = last ? marksFor(last, p) : { offered: p.offer };
  const can = st.playable();
  if (can.length) {
    if (st.mode === 'offer') {
      marks.selectable = st.offerableHoles();
      marks.selected = [...st.selected];
    } else {
      marks.legal = can.filter((a) => HOLES.includes(a));
      const pv = st.preview && marks.legal.includes(st.preview) ? st.previewOf(st.preview) : null;
      if (pv) marks.preview = { path: Array.isArray(pv.path) ? pv.path : [], captured: Array.isArray(pv.captured) ? pv.captured : [] };
    }
  }
  board.render(p, marks);
}
