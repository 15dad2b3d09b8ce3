// @ts-check
// The board as SVG: one player's row at the bottom, left to right as that
// player sees it (a1 … a4 for A), the other's on top, right to left
// (b4 b3 b2 b1), so sowing runs counter-clockwise; `setBottom('B')` turns
// it for B. Seeds are drawn as small circles (up to 20 a hole) with their
// number. The captured seeds sit in two bowls beside the board (the bottom
// player's on the right); they are not holes. An interactive board is one
// Tab stop: arrow keys move among the playable holes (roving tabindex).

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
/** Holes in reading order for the arrow keys: the bottom row left to right, then the top row. */
const ORDER = { A: ['a1', 'a2', 'a3', 'a4', 'b4', 'b3', 'b2', 'b1'], B: ['b1', 'b2', 'b3', 'b4', 'a4', 'a3', 'a2', 'a1'] };

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

/** Where hole i is drawn when `bottom`'s row is at the bottom. @param {number} i @param {'A'|'B'} [bottom] */
export function holeXY(i, bottom = 'A') {
  const r = bottom === 'A' ? i : (i + 4) % 8;
  if (r < 4) return { x: COLS[r], y: ROW_Y.bottom };
  return { x: COLS[7 - r], y: ROW_Y.top };
}

/** The side a player's bowl is drawn on: the bottom player's on the right. @param {'A'|'B'} p @param {'A'|'B'} bottom */
const traySide = (p, bottom) => (p === bottom ? TRAY.A : TRAY.B);

/** Seed k's offset inside a hole (a sunflower pattern). @param {number} k */
function seedOffset(k) {
  const r = 7.3 * Math.sqrt(k + 0.5);
  const a = k * 2.39996;
  return { dx: r * Math.cos(a), dy: r * Math.sin(a) };
}

/** Seed k's place in a bowl centred at cx, filled from the bottom. @param {number} cx @param {number} k */
function traySeedXY(cx, k) {
  const col = k % 4;
  const row = Math.floor(k / 4);
  return { x: cx - 16.5 + col * 11, y: TRAY.y + TRAY.h - 10 - row * 9.5 };
}

/** The letters A and B as strokes (the controller's badge). */
const GLYPH = {
  A: 'M-4.6 6.2 L0 -6.2 L4.6 6.2 M-2.7 1.6 H2.7',
  B: 'M-3.6 -6.2 V6.2 H1.2 C5 6.2 5 0 1.2 0 H-3.6 M1 0 C4.4 0 4.4 -6.2 1 -6.2 H-3.6',
};

const SEED_SHADES = ['#f4e7c9', '#eadbb8', '#f8eed6', '#e6d2a8'];

/**
 * @typedef {import('./gpn.js').Pos} Pos
 * @typedef {{origin?: string|null, captured?: string[], offered?: string[],
 *   selected?: string[], legal?: string[], selectable?: string[],
 *   preview?: {path: string[], captured: string[]}|null}} Marks
 */

/** Sets attributes. @param {Element} el @param {Record<string, string|number>} attrs */
function set(el, attrs) { for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v)); }

export class Board {
  /**
   * @param {{interactive?: boolean, onHole?: (hole: string) => void, onRefused?: (hole: string) => void, onPoint?: (hole: string|null, via: 'pointer'|'focus') => void, label?: string, compact?: boolean}} [opts]
   *   `onRefused`: a hole that may not be played now was activated (the page says why)
   */
  constructor(opts = {}) {
    this.opts = opts;
    /** Whose row is at the bottom. @type {'A'|'B'} */
    this.bottom = 'A';
    /** The hole that is the board's Tab stop. @type {string|null} */
    this.rover = null;
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
    /** @type {Record<string, {g: SVGGElement, bg: SVGRectElement, name: SVGTextElement, seeds: SVGGElement, count: SVGTextElement, n: number}>} */
    this.trays = {};
    for (const p of /** @type {('A'|'B')[]} */ (['B', 'A'])) {
      const g = /** @type {SVGGElement} */ (svgEl('g', { class: `tray tray-${p}` }, this.svg));
      const bg = /** @type {SVGRectElement} */ (svgEl('rect', { y: TRAY.y, width: TRAY.w, height: TRAY.h, rx: 22, class: 'tray-bg' }, g));
      const name = /** @type {SVGTextElement} */ (svgEl('text', { y: TRAY.y - 10, class: 'tray-name' }, g));
      name.textContent = p;
      const count = /** @type {SVGTextElement} */ (svgEl('text', { y: TRAY.y + 30, class: 'tray-count' }, g));
      const seeds = /** @type {SVGGElement} */ (svgEl('g', { class: 'tray-seeds' }, g));
      this.trays[p] = { g, bg, name, count, seeds, n: -1 };
    }
    this.holes = HOLES.map((h) => this._makeHole(h));
    this.fx = /** @type {SVGGElement} */ (svgEl('g', { class: 'fx' }, this.svg));
    this._layout();
  }

  /** Where hole i is drawn now. @param {number} i */
  holeXY(i) { return holeXY(i, this.bottom); }

  /** The middle of a player's bowl of captured seeds. @param {'A'|'B'} p */
  trayXY(p) { return { x: traySide(p, this.bottom).cx, y: TRAY.y + TRAY.h / 2 + 20 }; }

  /** Turns the board so that p's row is at the bottom. @param {'A'|'B'} p */
  setBottom(p) {
    if (p === this.bottom) return;
    this.bottom = p;
    this._layout();
    if (this.pos) this.render(this.pos, this.marks);
  }

  /** Places every hole and bowl for the current orientation. */
  _layout() {
    this.svg.dataset.bottom = this.bottom;
    HOLES.forEach((_name, i) => {
      const hole = this.holes[i];
      const { x, y } = this.holeXY(i);
      const top = y === ROW_Y.top;
      for (const c of [hole.ring, hole.bg, hole.mark]) { c.setAttribute('cx', String(x)); c.setAttribute('cy', String(y)); }
      hole.seeds.setAttribute('transform', `translate(${x} ${top ? y - 4 : y + 4})`);
      const py = top ? y + R : y - R;
      set(hole.pill, { x: x - 17, y: py - 13 });
      set(hole.count, { x, y: py + 1 });
      const ny = top ? 26 : 292;
      set(hole.label, { x: x - 8, y: ny });
      const by = top ? y - 36 : y + 36;
      set(hole.badgeBg, { cx: x + 38, cy: by });
      set(hole.badge, { transform: `translate(${x + 38} ${by})` });
      set(hole.trade, { x: x + 26, y: ny });
      set(hole.pv, { x: x - 38, y: by + 1 });
      set(hole.pvBg, { cx: x - 38, cy: by });
      hole.g.classList.toggle('top', top);
    });
    for (const p of /** @type {('A'|'B')[]} */ (['A', 'B'])) {
      const side = traySide(p, this.bottom);
      const tr = this.trays[p];
      set(tr.bg, { x: side.x });
      set(tr.name, { x: side.cx });
      set(tr.count, { x: side.cx });
      // The bowl's seeds are redrawn at their new place.
      while (tr.seeds.firstChild) tr.seeds.removeChild(tr.seeds.firstChild);
      tr.n = -1;
    }
  }

  /** @param {string} name */
  _makeHole(name) {
    const g = /** @type {SVGGElement} */ (svgEl('g', { class: 'hole', 'data-hole': name }, this.svg));
    if (this.opts.interactive) {
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '-1');
      g.addEventListener('click', () => this._activate(name));
      g.addEventListener('keydown', (e) => this._key(e, name));
      const point = (/** @type {string|null} */ hole, /** @type {'pointer'|'focus'} */ via) => { if (this.opts.onPoint) this.opts.onPoint(hole, via); };
      g.addEventListener('focus', () => point(name, 'focus'));
      g.addEventListener('blur', () => point(null, 'focus'));
      g.addEventListener('pointerenter', () => point(name, 'pointer'));
      g.addEventListener('pointerleave', () => point(null, 'pointer'));
    } else {
      g.setAttribute('role', 'img');
    }
    const ring = svgEl('circle', { r: R + 7, class: 'hole-ring' }, g);
    const bg = svgEl('circle', { r: R, class: 'hole-bg' }, g);
    const mark = svgEl('circle', { r: R - 8, class: 'capture-mark' }, g);
    // Seeds a little away from the count, which sits on the inner edge.
    const seeds = /** @type {SVGGElement} */ (svgEl('g', { class: 'seeds' }, g));
    // The visible texts, in the order the label says them ("a1: 6 seeds,
    // …"), so that the name of the button contains what it shows (WCAG
    // 2.5.3); the controller's letter is drawn, not written, for the same reason.
    const label = /** @type {SVGTextElement} */ (svgEl('text', { class: 'hole-name' }, g));
    // (The trailing space, not drawn, keeps "a1" and the count two words.)
    label.textContent = `${name} `;
    const pill = svgEl('rect', { width: 34, height: 26, rx: 13, class: 'count-pill' }, g);
    const count = /** @type {SVGTextElement} */ (svgEl('text', { class: 'count' }, g));
    const badgeBg = svgEl('circle', { r: 14, class: 'badge-bg' }, g);
    const badge = /** @type {SVGGElement} */ (svgEl('g', { class: 'badge' }, g));
    svgEl('path', { d: '' }, badge);
    const trade = /** @type {SVGTextElement} */ (svgEl('text', { class: 'trade-mark' }, g));
    trade.textContent = '⇄';
    // The preview: how many seeds the pointed sowing drops here.
    const pvBg = svgEl('circle', { r: 15, class: 'pv-bg' }, g);
    const pv = /** @type {SVGTextElement} */ (svgEl('text', { class: 'pv' }, g));
    return { g, ring, bg, mark, seeds, pill, count, label, badgeBg, badge, trade, pv, pvBg, n: -1 };
  }

  /**
   * The keys of a hole: Enter and Space play it; the arrows, Home and End
   * move among the playable holes (or all of them when none is playable
   * and `browse` is on), in reading order.
   * @param {KeyboardEvent} e @param {string} name
   */
  _key(e, name) {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this._activate(name);
      return;
    }
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -99, End: 99 };
    if (!(e.key in moves) || e.altKey || e.ctrlKey || e.metaKey) return;
    const enabled = this.enabled();
    const list = ORDER[this.bottom].filter((h) => enabled.includes(h));
    if (!list.length) return;
    e.preventDefault();
    e.stopPropagation();
    const step = moves[/** @type {keyof typeof moves} */ (e.key)];
    const at = list.indexOf(name);
    let to;
    if (step === -99) to = 0;
    else if (step === 99) to = list.length - 1;
    else if (at < 0) to = 0;
    else to = (at + step + list.length) % list.length;
    this.focusHole(list[to]);
  }

  /** The holes that may be clicked now. */
  enabled() {
    const m = this.marks;
    return HOLES.filter((h) => (!!m.legal && m.legal.includes(h)) || (!!m.selectable && m.selectable.includes(h)));
  }

  /** Moves the board's Tab stop to a hole and focuses it. @param {string} name */
  focusHole(name) {
    this._rove(name);
    this.holes[HOLES.indexOf(name)].g.focus();
  }

  /** Makes one hole the board's only Tab stop. @param {string|null} name */
  _rove(name) {
    if (!this.opts.interactive) return;
    this.rover = name;
    HOLES.forEach((h, i) => this.holes[i].g.setAttribute('tabindex', h === name ? '0' : '-1'));
  }

  /** The Tab stop after a change of marks: the same hole if still playable, else the first playable, else the first of the bottom row. */
  _pickRover() {
    const enabled = this.enabled();
    const order = ORDER[this.bottom];
    const focused = HOLES.find((_h, i) => this.holes[i].g === document.activeElement);
    if (focused && enabled.includes(focused)) return focused;
    if (this.rover && enabled.includes(this.rover)) return this.rover;
    return order.find((h) => enabled.includes(h)) || order[0];
  }

  /** @param {string} name */
  _activate(name) {
    const i = HOLES.indexOf(name);
    if (this.holes[i].g.getAttribute('aria-disabled') === 'true') {
      if (this.opts.onRefused) this.opts.onRefused(name);
      return;
    }
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
      const pv = marks.preview;
      const drops = pv ? pv.path.filter((x) => x === h).length : 0;
      g.classList.toggle('pv-drop', drops > 0);
      g.classList.toggle('pv-capture', !!pv && pv.captured.includes(h));
      this.holes[i].pv.textContent = drops ? `+${drops}` : '';
      if (this.opts.interactive) {
        g.setAttribute('aria-disabled', clickable ? 'false' : 'true');
        if (marks.selectable) g.setAttribute('aria-pressed', has(marks.selected, h) ? 'true' : 'false');
        else g.removeAttribute('aria-pressed');
      }
      this._label(i);
    });
    this._rove(this._pickRover());
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
    hole.badge.dataset.player = p;
    /** @type {Element} */ (hole.badge.firstChild).setAttribute('d', GLYPH[p]);
    this._label(i);
  }

  /** @param {'A'|'B'} p @param {number} n */
  setTray(p, n) {
    const tray = this.trays[p];
    if (this.pos) this.pos.captured[p] = n;
    tray.count.textContent = String(n);
    const drawn = Math.min(n, 48);
    const have = tray.seeds.childElementCount;
    const cx = traySide(p, this.bottom).cx;
    for (let k = have; k < drawn; k++) {
      const { x, y } = traySeedXY(cx, k);
      svgEl('circle', { cx: x, cy: y, r: 4.2, class: 'seed', fill: SEED_SHADES[k % 4] }, tray.seeds);
    }
    for (let k = have; k > drawn; k--) tray.seeds.lastChild && tray.seeds.removeChild(tray.seeds.lastChild);
    tray.g.setAttribute('aria-label', t('board.trayAria', { player: p, seeds: tn('seeds', n) }));
    tray.g.setAttribute('role', 'img');
    tray.n = n;
  }

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
