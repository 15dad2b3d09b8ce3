// @ts-check
// The board as SVG: B's row on top, right to left (b4 b3 b2 b1); A's row at
// the bottom, left to right (a1 … a4), so sowing runs counter-clockwise.
// Seeds are drawn as small circles (up to 20 a hole) with their number.
// The captured seeds sit in two bowls beside the board (B's on the left,
// A's on the right); they are not holes.

import { HOLES, rowOwner } from './gpn.js';
import { t, tn } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';
export const W = 600;
export const H = 310;
const COLS = [129, 243, 357, 471];
const ROW_Y = { top: 92, bottom: 218 };
const R = 48;
const SEED_R = 5.6;
const MAX_DRAWN = 20;
const TRAY = { B: { x: 6, cx: 36 }, A: { x: 534, cx: 564 }, y: 36, h: 238, w: 60 };

/**
 * @param {string} name
 * @param {Record<string, string|number>} [attrs]
 * @param {Element} [parent]
 */
export function svgEl(name, attrs, parent) {
  const el = document.createElementNS(NS, name);
  if (attrs) for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

/** Where hole i is drawn. @param {number} i */
export function holeXY(i) {
  if (i < 4) return { x: COLS[i], y: ROW_Y.bottom };
  return { x: COLS[7 - i], y: ROW_Y.top };
}

/** The middle of a player's bowl of captured seeds. @param {'A'|'B'} p */
export function trayXY(p) { return { x: TRAY[p].cx, y: TRAY.y + TRAY.h / 2 + 20 }; }

/** Seed k's offset inside a hole (a sunflower pattern). @param {number} k */
function seedOffset(k) {
  const r = 7.3 * Math.sqrt(k + 0.5);
  const a = k * 2.39996;
  return { dx: r * Math.cos(a), dy: r * Math.sin(a) };
}

/** Seed k's place in a bowl, filled from the bottom. @param {'A'|'B'} p @param {number} k */
function traySeedXY(p, k) {
  const col = k % 4;
  const row = Math.floor(k / 4);
  return { x: TRAY[p].cx - 16.5 + col * 11, y: TRAY.y + TRAY.h - 10 - row * 9.5 };
}

const SEED_SHADES = ['#f4e7c9', '#eadbb8', '#f8eed6', '#e6d2a8'];

/**
 * @typedef {import('./gpn.js').Pos} Pos
 * @typedef {{origin?: string|null, captured?: string[], offered?: string[],
 *   selected?: string[], legal?: string[], selectable?: string[]}} Marks
 */

export class Board {
  /**
   * @param {{interactive?: boolean, onHole?: (hole: string) => void, label?: string, compact?: boolean}} [opts]
   */
  constructor(opts = {}) {
    this.opts = opts;
    /** @type {Pos|null} */
    this.pos = null;
    /** @type {Marks} */
    this.marks = {};
    this.svg = /** @type {SVGSVGElement} */ (svgEl('svg', {
      viewBox: `0 0 ${W} ${H}`,
      class: 'board',
      role: 'group',
    }));
    this.svg.setAttribute('aria-label', opts.label || t('board.label'));
    svgEl('rect', { x: 70, y: 6, width: 460, height: 298, rx: 34, class: 'board-wood' }, this.svg);
    svgEl('line', { x1: 86, y1: 155, x2: 514, y2: 155, class: 'board-line' }, this.svg);
    /** @type {Record<string, {g: SVGGElement, seeds: SVGGElement, count: SVGTextElement, n: number}>} */
    this.trays = {};
    for (const p of /** @type {('A'|'B')[]} */ (['B', 'A'])) {
      const g = /** @type {SVGGElement} */ (svgEl('g', { class: `tray tray-${p}` }, this.svg));
      svgEl('rect', { x: TRAY[p].x, y: TRAY.y, width: TRAY.w, height: TRAY.h, rx: 22, class: 'tray-bg' }, g);
      const name = /** @type {SVGTextElement} */ (svgEl('text', { x: TRAY[p].cx, y: TRAY.y - 10, class: 'tray-name' }, g));
      name.textContent = p;
      const count = /** @type {SVGTextElement} */ (svgEl('text', { x: TRAY[p].cx, y: TRAY.y + 30, class: 'tray-count' }, g));
      const seeds = /** @type {SVGGElement} */ (svgEl('g', { class: 'tray-seeds' }, g));
      this.trays[p] = { g, count, seeds, n: -1 };
    }
    this.holes = HOLES.map((h, i) => this._makeHole(h, i));
    this.fx = /** @type {SVGGElement} */ (svgEl('g', { class: 'fx' }, this.svg));
  }

  /** @param {string} name @param {number} i */
  _makeHole(name, i) {
    const { x, y } = holeXY(i);
    const top = i >= 4;
    const g = /** @type {SVGGElement} */ (svgEl('g', { class: 'hole', 'data-hole': name }, this.svg));
    if (this.opts.interactive) {
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '0');
      g.addEventListener('click', () => this._activate(name));
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this._activate(name);
        }
      });
    } else {
      g.setAttribute('role', 'img');
    }
    svgEl('circle', { cx: x, cy: y, r: R + 7, class: 'hole-ring' }, g);
    const bg = svgEl('circle', { cx: x, cy: y, r: R, class: 'hole-bg' }, g);
    svgEl('circle', { cx: x, cy: y, r: R - 8, class: 'capture-mark' }, g);
    // Seeds a little away from the count, which sits on the inner edge.
    const seeds = /** @type {SVGGElement} */ (svgEl('g', { class: 'seeds', transform: `translate(${x} ${top ? y - 4 : y + 4})` }, g));
    const py = top ? y + R : y - R;
    svgEl('rect', { x: x - 17, y: py - 13, width: 34, height: 26, rx: 13, class: 'count-pill' }, g);
    const count = /** @type {SVGTextElement} */ (svgEl('text', { x, y: py + 1, class: 'count' }, g));
    const ny = top ? 26 : 292;
    const label = /** @type {SVGTextElement} */ (svgEl('text', { x: x - 8, y: ny, class: 'hole-name' }, g));
    label.textContent = name;
    const by = top ? y - 36 : y + 36;
    svgEl('circle', { cx: x + 38, cy: by, r: 14, class: 'badge-bg' }, g);
    const badge = /** @type {SVGTextElement} */ (svgEl('text', { x: x + 38, y: by + 1, class: 'badge' }, g));
    const trade = /** @type {SVGTextElement} */ (svgEl('text', { x: x + 26, y: ny, class: 'trade-mark' }, g));
    trade.textContent = '⇄';
    return { g, bg, seeds, count, badge, trade, n: -1 };
  }

  /** @param {string} name */
  _activate(name) {
    const i = HOLES.indexOf(name);
    if (this.holes[i].g.getAttribute('aria-disabled') === 'true') return;
    if (this.opts.onHole) this.opts.onHole(name);
  }

  /**
   * Draws a position with its marks.
   * @param {Pos} pos
   * @param {Marks} [marks]
   */
  render(pos, marks = {}) {
    this.pos = { holes: pos.holes.slice(), controllers: pos.controllers.slice(), captured: { ...pos.captured }, toMove: pos.toMove, offer: pos.offer.slice() };
    this.marks = marks;
    for (let i = 0; i < 8; i++) {
      this.setCount(i, pos.holes[i]);
      this.setController(i, pos.controllers[i]);
    }
    this.setTray('A', pos.captured.A);
    this.setTray('B', pos.captured.B);
    this.setMarks(marks);
  }

  /** @param {Marks} marks */
  setMarks(marks) {
    this.marks = marks;
    const has = (/** @type {string[]|undefined} */ list, /** @type {string} */ h) => !!list && list.includes(h);
    HOLES.forEach((h, i) => {
      const { g } = this.holes[i];
      g.classList.toggle('origin', marks.origin === h);
      g.classList.toggle('captured', has(marks.captured, h));
      g.classList.toggle('offered', has(marks.offered, h));
      g.classList.toggle('selected', has(marks.selected, h));
      const clickable = has(marks.legal, h) || has(marks.selectable, h);
      g.classList.toggle('legal', clickable);
      if (this.opts.interactive) {
        g.setAttribute('aria-disabled', clickable ? 'false' : 'true');
        if (marks.selectable) g.setAttribute('aria-pressed', has(marks.selected, h) ? 'true' : 'false');
        else g.removeAttribute('aria-pressed');
      }
      this._label(i);
    });
  }

  /** @param {number} i */
  _label(i) {
    if (!this.pos) return;
    const h = HOLES[i];
    const c = this.pos.controllers[i];
    let s = t('hole.aria', { hole: h, seeds: tn('seeds', this.pos.holes[i]), player: c });
    if (c !== rowOwner(i)) s += `, ${t('hole.traded')}`;
    if (this.marks.offered && this.marks.offered.includes(h)) s += `, ${t('hole.offered')}`;
    if (this.marks.captured && this.marks.captured.includes(h)) s += `, ${t('hole.wasCaptured')}`;
    if (this.marks.origin === h) s += `, ${t('hole.lastSown')}`;
    if (this.marks.selectable && this.marks.selected) {
      s += `, ${t(this.marks.selected.includes(h) ? 'hole.selected' : 'hole.notSelected')}`;
    }
    this.holes[i].g.setAttribute('aria-label', s);
  }

  /** @param {number} i @param {number} n */
  setCount(i, n) {
    const hole = this.holes[i];
    if (this.pos) this.pos.holes[i] = n;
    hole.count.textContent = String(n);
    hole.g.classList.toggle('empty', n === 0);
    const drawn = Math.min(n, MAX_DRAWN);
    const have = hole.seeds.childElementCount;
    for (let k = have; k < drawn; k++) {
      const { dx, dy } = seedOffset(k);
      svgEl('circle', { cx: dx.toFixed(1), cy: dy.toFixed(1), r: SEED_R, class: 'seed', fill: SEED_SHADES[(k * 7 + i) % 4] }, hole.seeds);
    }
    for (let k = have; k > drawn; k--) hole.seeds.lastChild && hole.seeds.removeChild(hole.seeds.lastChild);
    hole.n = n;
    this._label(i);
  }

  /** @param {number} i @param {'A'|'B'} p */
  setController(i, p) {
    const hole = this.holes[i];
    if (this.pos) this.pos.controllers[i] = p;
    hole.g.classList.toggle('ctl-A', p === 'A');
    hole.g.classList.toggle('ctl-B', p === 'B');
    hole.g.classList.toggle('traded', p !== rowOwner(i));
    hole.badge.textContent = p;
    this._label(i);
  }

  /** @param {'A'|'B'} p @param {number} n */
  setTray(p, n) {
    const tray = this.trays[p];
    if (this.pos) this.pos.captured[p] = n;
    tray.count.textContent = String(n);
    const drawn = Math.min(n, 48);
    const have = tray.seeds.childElementCount;
    for (let k = have; k < drawn; k++) {
      const { x, y } = traySeedXY(p, k);
      svgEl('circle', { cx: x, cy: y, r: 4.2, class: 'seed', fill: SEED_SHADES[k % 4] }, tray.seeds);
    }
    for (let k = have; k > drawn; k--) tray.seeds.lastChild && tray.seeds.removeChild(tray.seeds.lastChild);
    tray.g.setAttribute('aria-label', t('board.trayAria', { player: p, seeds: tn('seeds', n) }));
    tray.g.setAttribute('role', 'img');
    tray.n = n;
  }

  /** The hole elements, for focus handling. @param {string} h */
  holeEl(h) { return this.holes[HOLES.indexOf(h)].g; }

  /**
   * Flies n seeds from one point to another.
   * @param {{x: number, y: number}} from
   * @param {{x: number, y: number}} to
   * @param {number} n
   * @param {number} ms
   * @param {import('./anim.js').Animator} anim
   */
  async fly(from, to, n, ms, anim) {
    if (anim.instant || n <= 0) return;
    const shown = Math.min(n, 12);
    const jobs = [];
    for (let k = 0; k < shown; k++) {
      const off = shown > 1 ? seedOffset(k) : { dx: 0, dy: 0 };
      const c = svgEl('circle', { cx: from.x + off.dx, cy: from.y + off.dy, r: SEED_R, class: 'seed flying', fill: SEED_SHADES[k % 4] }, this.fx);
      const dx = to.x - from.x;
      const dy = to.y - from.y;
      const lift = -Math.min(60, 20 + Math.hypot(dx, dy) / 6);
      const a = c.animate([
        { transform: 'translate(0px, 0px)' },
        { transform: `translate(${dx / 2}px, ${dy / 2 + lift}px)`, offset: 0.5 },
        { transform: `translate(${dx}px, ${dy}px)` },
      ], { duration: anim.ms(ms), easing: 'ease-in-out', fill: 'forwards', delay: anim.ms(k * 12) });
      jobs.push(anim.track(a).then(() => c.remove()));
    }
    await Promise.all(jobs);
  }

  /** A short highlight of a hole. @param {number} i @param {string} cls @param {number} ms @param {import('./anim.js').Animator} anim */
  async flash(i, cls, ms, anim) {
    const { g } = this.holes[i];
    g.classList.add(cls);
    await anim.wait(ms);
    g.classList.remove(cls);
  }

  /** Removes flying seeds and transient highlights. */
  clearFx() {
    while (this.fx.firstChild) this.fx.removeChild(this.fx.firstChild);
    for (const h of this.holes) h.g.classList.remove('hand', 'flash-capture', 'flash-offer', 'flash-sweep', 'flash-pay');
  }
}
