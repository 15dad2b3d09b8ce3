// @ts-check
// Seed-by-seed animation of an action, from the previous position to the
// next one, on a Board. Skippable at any moment: skip() finishes every
// running animation and makes the rest instant; the caller then draws the
// server's position, so the animation never decides anything.

import { clonePos, holeIndex, other, parseAction } from './gpn.js';

const SPEEDS = { slow: 0.6, normal: 1, fast: 2.5, off: 0 };
const SPEED_KEY = 'gore.animation';

/** The saved speed: slow, normal, fast or off. */
export function savedSpeed() {
  try {
    const s = localStorage.getItem(SPEED_KEY);
    if (s && s in SPEEDS) return s;
  } catch (_) { /* ignore */ }
  if (window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches) return 'off';
  return 'normal';
}

/** @param {string} s */
export function saveSpeed(s) {
  try { localStorage.setItem(SPEED_KEY, s); } catch (_) { /* ignore */ }
}

export class Animator {
  /** @param {string} speed */
  constructor(speed) {
    this.factor = SPEEDS[/** @type {keyof typeof SPEEDS} */ (speed)] ?? 1;
    this.skipped = false;
    /** @type {Set<Animation>} */
    this.running = new Set();
    /** @type {Set<() => void>} */
    this.timers = new Set();
  }

  get instant() { return this.skipped || this.factor === 0; }

  /** @param {number} ms */
  ms(ms) { return this.instant ? 0 : ms / this.factor; }

  /** @param {number} ms */
  wait(ms) {
    if (this.instant) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { clearTimeout(id); this.timers.delete(done); resolve(undefined); };
      const id = setTimeout(done, ms / this.factor);
      this.timers.add(done);
    });
  }

  /** @param {Animation} a */
  track(a) {
    this.running.add(a);
    return a.finished.catch(() => undefined).then(() => { this.running.delete(a); });
  }

  skip() {
    this.skipped = true;
    for (const a of [...this.running]) { try { a.finish(); } catch (_) { a.cancel(); } }
    for (const f of [...this.timers]) f();
  }
}

const DROP_MS = 230;
const CAPTURE_MS = 480;
/** A sowing's seeds take at most this long in all (at normal speed): a long sowing drops faster. */
export const SOW_CAP_MS = 2000;

/**
 * The time each seed of a sowing of `seeds` takes to drop (at normal
 * speed): 230 ms, less for a long sowing, so that the whole stays within
 * SOW_CAP_MS.
 * @param {number} seeds
 */
export function dropMs(seeds) {
  return seeds > 0 ? Math.min(DROP_MS, SOW_CAP_MS / seeds) : DROP_MS;
}

/**
 * For tests: each sowing animated, as planned (seeds, ms a seed and in
 * all, at the Animator's speed), as `window.goreSowings`.
 * @type {{seeds: number, perSeed: number, total: number}[]}
 */
const sowings = [];
/** @type {any} */ (window).goreSowings = sowings;

/**
 * Animates one action on the board, from `prev` to `next`.
 * @param {import('./board.js').Board} board
 * @param {import('./gpn.js').Pos} prev
 * @param {import('./gpn.js').Pos} next the position after the action (it may already be swept)
 * @param {string} action
 * @param {string[]} captured the holes the action captured
 * @param {{path?: string[], onSweep?: () => void}} how the sowing's path from
 *   the server (each sown seed's hole in order): the page does not sow by
 *   itself; without a path it shows the result at once
 * @param {Animator} anim
 */
export async function animateAction(board, prev, next, action, captured, how, anim) {
  const a = parseAction(action);
  const pos = clonePos(prev);
  const mover = prev.toMove;
  board.render(pos, { origin: a.kind === 'sow' ? a.hole : null, offered: pos.offer });
  if (a.kind === 'sow' && !(how.path && how.path.length)) {
    board.render(next, { origin: a.hole, captured });
    await anim.wait(DROP_MS);
    return;
  }
  if (a.kind === 'sow') {
    const o = holeIndex(a.hole);
    const path = (how.path || []).map(holeIndex);
    board.holes[o].g.classList.add('hand');
    board.setCount(o, 0);
    pos.holes[o] = 0;
    let from = board.holeXY(o);
    const drop = dropMs(path.length);
    if (!anim.instant) sowings.push({ seeds: path.length, perSeed: anim.ms(drop), total: anim.ms(drop) * path.length });
    for (const j of path) {
      const to = board.holeXY(j);
      await board.fly(from, to, 1, drop, anim);
      pos.holes[j] += 1;
      board.setCount(j, pos.holes[j]);
      from = to;
    }
    board.holes[o].g.classList.remove('hand');
    if (captured.length) {
      await anim.wait(200);
      for (const h of captured) {
        const i = holeIndex(h);
        const n = pos.holes[i];
        board.holes[i].g.classList.add('flash-capture');
        await anim.wait(160);
        const flight = board.fly(board.holeXY(i), board.trayXY(mover), n, CAPTURE_MS, anim);
        board.setCount(i, 0);
        pos.holes[i] = 0;
        await flight;
        pos.captured[mover] += n;
        board.setTray(mover, pos.captured[mover]);
        board.holes[i].g.classList.remove('flash-capture');
      }
    }
    pos.toMove = other(mover);
  } else if (a.kind === 'offer') {
    board.setMarks({ offered: a.holes });
    for (const h of a.holes) board.holes[holeIndex(h)].g.classList.add('flash-offer');
    await anim.wait(700);
    for (const h of a.holes) board.holes[holeIndex(h)].g.classList.remove('flash-offer');
    pos.offer = a.holes;
    pos.toMove = other(mover);
  } else if (a.kind === 'accept') {
    for (const h of prev.offer) {
      const i = holeIndex(h);
      board.holes[i].g.classList.add('flash-pay');
      const flight = board.fly(board.trayXY(mover), board.holeXY(i), 6, CAPTURE_MS, anim);
      pos.captured[mover] -= 6;
      board.setTray(mover, pos.captured[mover]);
      await flight;
      pos.holes[i] += 6;
      pos.controllers[i] = mover;
      board.setCount(i, pos.holes[i]);
      board.setController(i, mover);
      board.holes[i].g.classList.remove('flash-pay');
    }
    pos.offer = [];
    await anim.wait(250);
  } else if (a.kind === 'decline') {
    board.setMarks({ offered: prev.offer });
    await anim.wait(500);
    pos.offer = [];
  } else {
    await anim.wait(500);
    pos.toMove = other(mover);
  }
  // The final sweep, when the next position is the swept end.
  const swept = next.holes.every((n) => n === 0) && pos.holes.some((n) => n > 0);
  if (swept) {
    if (how.onSweep) how.onSweep();
    await animateSweep(board, pos, anim);
  }
}

/**
 * Every seed left on the board goes to its hole's controller.
 * @param {import('./board.js').Board} board
 * @param {import('./gpn.js').Pos} pos (changed)
 * @param {Animator} anim
 */
export async function animateSweep(board, pos, anim) {
  await anim.wait(400);
  for (let i = 0; i < 8; i++) {
    const n = pos.holes[i];
    if (!n) continue;
    const p = pos.controllers[i];
    board.holes[i].g.classList.add('flash-sweep');
    const flight = board.fly(board.holeXY(i), board.trayXY(p), n, CAPTURE_MS, anim);
    board.setCount(i, 0);
    pos.holes[i] = 0;
    await flight;
    pos.captured[p] += n;
    board.setTray(p, pos.captured[p]);
    board.holes[i].g.classList.remove('flash-sweep');
  }
}

