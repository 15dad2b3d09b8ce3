// @ts-check
// Reading the project notation (docs/NOTATION.md) for display and animation.
// The browser never decides legality: the server's `legal` list does.

/** Board order, which is also the sowing order. */
export const HOLES = ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'b3', 'b4'];

/**
 * @typedef {'A'|'B'} Player
 * @typedef {{holes: number[], controllers: Player[], captured: {A: number, B: number},
 *   toMove: Player, offer: string[]}} Pos
 */

/**
 * Parses a GPN position.
 * @param {string} gpn
 * @returns {Pos}
 */
export function parseGpn(gpn) {
  const f = String(gpn).trim().split(/\s+/);
  if (f.length !== 5) throw new Error(`bad GPN: ${gpn}`);
  const holes = f[0].replace('/', ',').split(',').map(Number);
  const controllers = /** @type {Player[]} */ (f[1].replace('/', '').split(''));
  const [ca, cb] = f[2].split('-').map(Number);
  if (holes.length !== 8 || controllers.length !== 8 || holes.some((n) => !Number.isFinite(n))) {
    throw new Error(`bad GPN: ${gpn}`);
  }
  return {
    holes,
    controllers,
    captured: { A: ca, B: cb },
    toMove: /** @type {Player} */ (f[3]),
    offer: f[4] === '-' ? [] : f[4].split('+'),
  };
}

/** @param {Pos} p */
export function clonePos(p) {
  return { holes: p.holes.slice(), controllers: p.controllers.slice(), captured: { ...p.captured }, toMove: p.toMove, offer: p.offer.slice() };
}

/** @param {Player} p */
export function other(p) { return p === 'A' ? 'B' : 'A'; }

/** @param {string} h */
export function holeIndex(h) { return HOLES.indexOf(h); }

/** The row's original owner: `a…` holes belong to A's row. @param {number} i */
export function rowOwner(i) { return i < 4 ? 'A' : 'B'; }

/**
 * An action token, taken apart.
 * @param {string} a
 * @returns {{kind: 'sow', hole: string} | {kind: 'offer', holes: string[]} | {kind: 'accept'|'decline'|'pass'}}
 */
export function parseAction(a) {
  if (HOLES.includes(a)) return { kind: 'sow', hole: a };
  if (a.startsWith('offer:')) return { kind: 'offer', holes: a.slice(6).split(',') };
  if (a === 'accept' || a === 'decline' || a === 'pass') return { kind: a };
  throw new Error(`unknown action ${a}`);
}

/** The offer token for a set of holes, in board order. @param {Iterable<string>} holes */
export function offerToken(holes) {
  const set = new Set(holes);
  return `offer:${HOLES.filter((h) => set.has(h)).join(',')}`;
}

/** @param {string} rules */
export function ruleOptions(rules) {
  const opts = new Set(String(rules || 'standard').split(',').map((s) => s.trim()));
  return {
    skipOrigin: opts.has('skip-origin'),
    noTrades: opts.has('no-trades'),
    cedeAll: opts.has('cede-all'),
  };
}

/**
 * The names of captured holes in an action entry.
 * @param {{captured?: unknown}|null|undefined} entry
 * @returns {string[]}
 */
export function capturedHoles(entry) {
  const c = entry && entry.captured;
  if (!Array.isArray(c)) return [];
  return c.filter((h) => HOLES.includes(h));
}
