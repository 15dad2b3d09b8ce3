// @ts-check
// This browser's progress in the lessons (localStorage): the lessons done,
// whether it ever opened one, and whether it declined the home page's
// offer of them. Shared by the lessons page and the home page, which shows
// the offer to first-time visitors only.

const PROGRESS_KEY = 'gore.lessons';

/** @returns {{done: string[], started: boolean, dismissed: boolean}} */
export function progress() {
  /** @type {any} */
  let p = {};
  try { p = JSON.parse(localStorage.getItem(PROGRESS_KEY) || '{}') || {}; } catch (_) { p = {}; }
  return {
    done: Array.isArray(p.done) ? p.done.filter((/** @type {any} */ x) => typeof x === 'string') : [],
    started: !!p.started,
    dismissed: !!p.dismissed,
  };
}

/** @param {Partial<ReturnType<typeof progress>>} change */
export function saveProgress(change) {
  const next = { ...progress(), ...change };
  try { localStorage.setItem(PROGRESS_KEY, JSON.stringify(next)); } catch (_) { /* private mode: no memory */ }
}

/** Whether the home page still offers the lessons: never started, never dismissed. */
export function offerLessons() {
  const p = progress();
  return !p.started && !p.dismissed;
}
