// @ts-check
// The game page's store: the server's state and the page's own interface
// state, in one place. `apply` is the only way a `state` or `update`
// message (socket, HTTP answer, poll) changes the server part; each
// position string is parsed once, when it arrives. The views read the
// store and never change the server part. What the server sends is typed
// in wire.js (checked against the server by tests/js_types.rs).

import { HOLES, parseGpn } from './gpn.js';

/**
 * @typedef {import('./gpn.js').Pos} Pos
 * @typedef {import('./wire.js').Player} Player
 * @typedef {import('./wire.js').Entry} Entry
 * @typedef {import('./wire.js').GameState} GameState
 * @typedef {import('./wire.js').Update} Update
 * @typedef {import('./wire.js').Head} Head
 * @typedef {{pos: Pos, entry: Entry|null, k: number, sweep?: boolean}} Step
 */

/** The number of actions a state or update has. @param {GameState|Update} s */
export const plyOf = (s) => (typeof s.ply === 'number' ? s.ply : s.actions.length);

/**
 * What changes with each action: a state or an update without id and log
 * (a state's `takebacks` stays).
 * @param {GameState|Update} s
 * @returns {Head}
 */
export function headOf(s) {
  const { id: _id, mode: _mode, rules: _rules, start: _start, you: _you, actions: _actions, since: _since, ...head } = /** @type {Partial<GameState & Update>} */ (s);
  return /** @type {Head} */ (head);
}

export class GameStore {
  /** @param {string} id */
  constructor(id) {
    this.id = id;
    /** The server's state, null before the first one. @type {GameState|null} */
    this.s = null;
    /** positions[k]: the position after action k (0: the start), parsed once. @type {Pos[]} */
    this.positions = [];
    /** The position strings those were parsed from (to reuse them). @type {string[]} */
    this.gpns = [];
    /** The current position (the swept end once the game is over). @type {Pos|null} */
    this.current = null;
    this.currentGpn = '';
    /**
     * For tests: every state and update the page received, and what it did
     * with it (applied or ignored), as `window.goreTrace`.
     * @type {Array<{kind: string, since?: number, ply: number, added: number, applied: boolean}>}
     */
    this.trace = [];
    /** A full state was asked for after a gap in the updates. */
    this.resyncing = false;

    // ----- interface state -----
    /** Actions already drawn on the board. */
    this.shownCount = 0;
    this.animating = false;
    /** 'play' | 'offer' */
    this.mode = 'play';
    /** @type {Set<string>} */
    this.selected = new Set();
    this.confirmDecline = false;
    this.confirmResign = false;
    this.sending = false;
    /** Review step when the game is over (0 = start); null = the end. @type {number|null} */
    this.review = null;
    this.conn = 'connecting';
    this.retryMs = 0;
    /** A request failed for want of a connection; holes wait until it is back. */
    this.offline = false;
    /** The server said its database failed: it shows the game, plays nothing. */
    this.unavailable = false;
    /** @type {string|null} */
    this.loadError = null;
    /** The "continue on another device" link, once made; 'revoked' after a revocation. @type {string|null} */
    this.deviceUrl = null;
    this.deviceBusy = false;
    /** The board turned by hand (spectators, one device). */
    this.flipped = false;
    /** The hole a preview is drawn for (pointer or focus). @type {string|null} */
    this.preview = null;
    /** The ply an action was sent over the socket at, until its update or error. @type {number|null} */
    this.pendingPly = null;
  }

  // ----- applying the server's messages -----

  /**
   * A whole state (the socket's first, a resync, an HTTP answer, a poll):
   * taken when it is newer than the page's, or as new with a different
   * head; an older or identical one is left (no second render).
   * @param {GameState} s
   * @param {string} kind where it came from, for the trace
   * @returns {boolean} whether it was taken
   */
  applyState(s, kind) {
    if (!s || s.id !== this.id || !Array.isArray(s.actions)) return false;
    const ply = plyOf(s);
    if (kind === 'socket') this.resyncing = false;
    if (this.s) {
      const have = plyOf(this.s);
      const same = ply === have && JSON.stringify(headOf(s)) === JSON.stringify(headOf(this.s))
        && JSON.stringify(s.actions) === JSON.stringify(this.s.actions);
      // A takeback makes a state shorter: it is taken when its head differs.
      if ((ply < have && !this.takenBack(s)) || same) {
        this.trace.push({ kind, ply, added: 0, applied: false });
        return false;
      }
    }
    const added = this.s ? Math.max(0, ply - plyOf(this.s)) : 0;
    this.trace.push({ kind, ply, added, applied: true });
    this.take(s);
    return true;
  }

  /** Whether a shorter state is the answer to a takeback (its log is a prefix of ours, its head new). @param {GameState} s */
  takenBack(s) {
    if (!this.s || !Array.isArray(s.takebacks) && typeof s.takebacks !== 'number') return false;
    const mine = this.s.takebacks;
    const theirs = s.takebacks;
    const count = (/** @type {unknown} */ x) => (Array.isArray(x) ? x.length : Number(x) || 0);
    return count(theirs) > count(mine);
  }

  /**
   * An update from the socket: applied when it follows the page's state
   * (`since` is its ply), its new part taken when it overlaps, ignored when
   * the page already has it; a gap returns 'gap' (ask for the whole state).
   * @param {Update} u
   * @returns {'applied'|'ignored'|'gap'}
   */
  applyUpdate(u) {
    if (!u || u.id !== this.id || !this.s || !Array.isArray(u.actions)) return 'ignored';
    const have = plyOf(this.s);
    const since = Number(u.since);
    if (since > have) {
      this.trace.push({ kind: 'update', since, ply: u.ply, added: 0, applied: false });
      return 'gap';
    }
    if (since < have && u.ply <= have) {
      this.trace.push({ kind: 'update', since, ply: u.ply, added: 0, applied: false });
      return 'ignored';
    }
    const fresh = u.actions.filter((/** @type {Entry} */ e) => e.ply > have);
    const next = { ...this.s, ...headOf(u), actions: this.s.actions.concat(fresh) };
    this.trace.push({ kind: 'update', since, ply: plyOf(next), added: fresh.length, applied: true });
    // A resync is answered by an update when the page gave its ply.
    this.resyncing = false;
    this.take(next);
    return 'applied';
  }

  /** Takes a new server state, parsing only the positions not seen before. @param {GameState} s */
  take(s) {
    const before = this.s ? plyOf(this.s) : 0;
    // A rating change, once known, stays: an older answer (a resignation's,
    // arriving after the socket's update) must not take it away.
    if (this.s && this.s.seats && s.seats) {
      for (const p of /** @type {('A'|'B')[]} */ (['A', 'B'])) {
        const was = this.s.seats[p];
        const now = s.seats[p];
        if (was && now && was.kind === 'human' && now.kind === 'human' && was.rating_change && !now.rating_change) now.rating_change = was.rating_change;
      }
    }
    this.s = s;
    const gpns = [s.start, ...s.actions.map((/** @type {Entry} */ e) => e.position)];
    /** @type {Pos[]} */
    const positions = [];
    for (let k = 0; k < gpns.length; k++) {
      positions.push(this.gpns[k] === gpns[k] && this.positions[k] ? this.positions[k] : parseGpn(gpns[k]));
    }
    this.positions = positions;
    this.gpns = gpns;
    if (s.position !== this.currentGpn || !this.current) {
      this.current = s.position === gpns[gpns.length - 1] ? positions[positions.length - 1] : parseGpn(s.position);
      this.currentGpn = s.position;
    }
    if (this.pendingPly !== null && plyOf(s) > this.pendingPly) this.endPending();
    if (plyOf(s) > before) this.unavailable = false;
    if (this.shownCount > s.actions.length) this.shownCount = s.actions.length;
    if (this.selected.size && !this.legal().some((a) => a.startsWith('offer:'))) {
      this.selected = new Set();
      this.mode = 'play';
    }
    if (this.mode === 'offer' && !this.legal().some((a) => a.startsWith('offer:'))) this.mode = 'play';
  }

  /** The action sent over the socket is answered (or given up on). */
  endPending() {
    this.pendingPly = null;
    this.sending = false;
  }

  // ----- reading -----

  get you() { return this.s ? this.s.you : null; }
  get over() { return !!this.s && this.s.status === 'over'; }
  get ply() { return this.s ? plyOf(this.s) : 0; }
  get entries() { return /** @type {Entry[]} */ (this.s ? this.s.actions : []); }
  /** @returns {Pos} */
  get pos() { return /** @type {Pos} */ (this.current); }

  /** Whether you hold a seat (A, B, or both on one device). */
  get seated() { return this.you === 'A' || this.you === 'B' || this.you === 'both'; }

  /** What you may play now: the server's `legal`, and only on your turn
   *  (a shared update must not let a spectator or the other seat click). */
  legal() {
    if (!this.s) return /** @type {string[]} */ ([]);
    const me = this.s.you;
    if (me !== 'both' && (me !== 'A' && me !== 'B' || (this.s.to_move && this.s.to_move !== me))) return [];
    return /** @type {string[]} */ (this.s.legal || []);
  }

  /** What may be clicked now: nothing while animating, sending or offline. */
  playable() {
    if (this.animating || this.sending || this.offline || this.unavailable || this.over) return [];
    return this.legal();
  }

  /** Whether an offer may be made now. */
  canOffer() { return this.legal().some((a) => a.startsWith('offer:')); }

  /** The position after action k (1-based); 0 is the start. @param {number} k */
  posAfter(k) { return this.positions[Math.max(0, Math.min(k, this.positions.length - 1))]; }

  /** Whether the AI plays p. @param {Player} p */
  isAi(p) { return !!(this.s && this.s.seats && this.s.seats[p] && this.s.seats[p].kind === 'ai'); }

  /** Positions to step through when reviewing: start, each action, and the swept end if it differs. @returns {Step[]} */
  reviewSteps() {
    const n = this.entries.length;
    /** @type {Step[]} */
    const steps = [];
    for (let k = 0; k <= n; k++) steps.push({ pos: this.posAfter(k), entry: k ? this.entries[k - 1] : null, k });
    if (this.over && n && this.entries[n - 1].position !== /** @type {GameState} */ (this.s).position) steps.push({ pos: this.pos, entry: null, k: n, sweep: true });
    return steps;
  }

  /** The review step shown (the last one unless stepped back). */
  reviewStep() {
    const steps = this.reviewSteps();
    const i = this.review === null ? steps.length - 1 : Math.min(this.review, steps.length - 1);
    return { steps, i, step: steps[i] };
  }

  /** The number of actions the board shows (the review's, the animation's, or all). */
  shownPly() {
    if (this.over && !this.animating) return this.reviewStep().step.k;
    return this.shownCount;
  }

  /** Whether p had declined an offer by action k (the review shows it only from then on). @param {Player} p @param {number} k */
  declinedBy(p, k) {
    return this.entries.slice(0, k).some((e) => e.player === p && e.action === 'decline');
  }

  /** The seeds the final sweep gave each player: the server's, or the difference it made. @returns {[number, number]|null} */
  swept() {
    const r = this.s && this.s.result;
    if (r && Array.isArray(r.swept)) return [Number(r.swept[0]) || 0, Number(r.swept[1]) || 0];
    const n = this.entries.length;
    if (!this.over || !n || this.entries[n - 1].position === /** @type {GameState} */ (this.s).position) return null;
    const before = this.posAfter(n);
    return [this.pos.captured.A - before.captured.A, this.pos.captured.B - before.captured.B];
  }

  /** The holes that may go in an offer. */
  offerableHoles() {
    const set = new Set();
    for (const a of this.legal()) if (a.startsWith('offer:')) for (const x of a.slice(6).split(',')) set.add(x);
    return HOLES.filter((x) => set.has(x));
  }

  /** The server's preview of sowing a hole, if it sent one. @param {string} hole */
  previewOf(hole) {
    const list = this.s && this.s.previews;
    if (!Array.isArray(list)) return null;
    return list.find((p) => p && p.action === hole) || null;
  }

  /** Which player's row is drawn at the bottom: your own, else A's (or turned by hand). @returns {Player} */
  bottom() {
    const me = this.you;
    const base = me === 'B' ? 'B' : 'A';
    if (me === 'A' || me === 'B') return base;
    return this.flipped ? 'B' : 'A';
  }

  /** The trailing actions of the player who is not to move (what the other side just did). */
  lastRun() {
    const list = this.entries;
    if (!list.length) return [];
    const who = list[list.length - 1].player;
    const run = [];
    for (let k = list.length - 1; k >= 0 && list[k].player === who; k--) run.unshift(list[k]);
    return run;
  }

}
