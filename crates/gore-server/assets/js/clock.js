// @ts-check
// Clocks on the page: the server says how much time each player had when
// it made the state (`clock.left`) and whose clock runs; the page counts
// down from the moment the state arrived, and takes the figures again
// from every state and update. It never decides a flag: the server does.

import { t, tn } from './i18n.js';

/** Below this a Fischer clock shows tenths and turns red (ms). */
export const LOW_FISCHER = 20_000;
/** Below this a correspondence clock turns red (ms): an hour. */
export const LOW_DAYS = 3_600_000;

/** A pace in words: `5+3` → "5 min + 3 s", `3d` → "3 days a move". @param {string} p */
export function paceLabel(p) {
  const d = /^(\d+)d$/.exec(p);
  if (d) return tn('clock.days', Number(d[1]));
  const f = /^(\d+)\+(\d+)$/.exec(p);
  if (f) return t('clock.fischer', { m: f[1], s: f[2] });
  return p;
}

/** Whether a time control is correspondence (`3d`). @param {string} control */
export function isDays(control) {
  return /d$/.test(control);
}

/**
 * The time left as the clock shows it: `4:05`, `0:09.3` under 20 s;
 * `2 d 5 h`, `5 h 03 min`, or `m:ss` under an hour for correspondence.
 * @param {number} ms @param {string} control
 */
export function formatLeft(ms, control) {
  const left = Math.max(0, ms);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
  if (isDays(control) && left >= 3_600_000) {
    const h = Math.floor(left / 3_600_000);
    if (h >= 24) return t('clock.dh', { d: Math.floor(h / 24), h: h % 24 });
    return t('clock.hm', { h, m: pad(Math.floor((left % 3_600_000) / 60_000)) });
  }
  const s = Math.floor(left / 1000);
  const base = `${Math.floor(s / 60)}:${pad(s % 60)}`;
  if (!isDays(control) && left < LOW_FISCHER) return `${base}.${Math.floor((left % 1000) / 100)}`;
  return base;
}

/**
 * The time a player has now, counted down from the state's figures.
 * @param {import('./wire.js').ClockView} clock the state's `clock` @param {'A'|'B'} p
 * @param {number} elapsed ms since the state arrived
 */
export function leftNow(clock, p, elapsed) {
  const left = clock.left[p];
  return clock.running === p ? Math.max(0, left - elapsed) : left;
}

/** Whether a time left is low for its control. @param {number} ms @param {string} control */
export function isLow(ms, control) {
  return ms < (isDays(control) ? LOW_DAYS : LOW_FISCHER);
}
