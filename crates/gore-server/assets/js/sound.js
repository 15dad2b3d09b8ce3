// @ts-check
// Sounds and the "your turn" alert. Sounds are short tones made with Web
// Audio (no files to load), off by default and remembered; the tab title
// says when it is your turn, and a notification too when the page is
// hidden and the player allowed it.

const SOUND_KEY = 'gore.sound';
const NOTIFY_KEY = 'gore.notify';

/** @type {AudioContext|null} */
let ctx = null;

/** Whether sounds are on (off unless the player turned them on). */
export function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) === 'on'; } catch (_) { return false; }
}

/** @param {boolean} on */
export function setSound(on) {
  try { localStorage.setItem(SOUND_KEY, on ? 'on' : 'off'); } catch (_) { /* ignore */ }
  // Browsers start audio only after a gesture: this change is one.
  if (on) { audio(); cue('turn'); }
}

/** Whether notifications are wanted (and allowed). */
export function notifyOn() {
  try { return localStorage.getItem(NOTIFY_KEY) === 'on' && 'Notification' in window && Notification.permission === 'granted'; } catch (_) { return false; }
}

/** Asks the browser for notifications (from a click) and remembers the answer. @param {boolean} on */
export async function setNotify(on) {
  if (on && 'Notification' in window && Notification.permission === 'default') {
    try { await Notification.requestPermission(); } catch (_) { /* ignore */ }
  }
  const ok = on && 'Notification' in window && Notification.permission === 'granted';
  try { localStorage.setItem(NOTIFY_KEY, ok ? 'on' : 'off'); } catch (_) { /* ignore */ }
  return ok;
}

function audio() {
  if (ctx) return ctx;
  const AC = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!AC) return null;
  try { ctx = new AC(); } catch (_) { ctx = null; }
  return ctx;
}

/** The tones of each cue: [frequency Hz, start s, length s]. */
const CUES = {
  sow: [[520, 0, 0.06]],
  capture: [[660, 0, 0.08], [880, 0.09, 0.12]],
  turn: [[440, 0, 0.1], [587, 0.12, 0.16]],
  offer: [[392, 0, 0.12], [494, 0.14, 0.12], [587, 0.28, 0.18]],
  lowtime: [[880, 0, 0.08], [880, 0.15, 0.08], [880, 0.3, 0.08]],
};

/** For tests: the cues played, as `window.goreSounds`. @type {string[]} */
const played = [];
/** @type {any} */ (window).goreSounds = played;

/** Plays a cue when sounds are on. @param {keyof typeof CUES} name */
export function cue(name) {
  if (!soundOn()) return;
  played.push(name);
  const ac = audio();
  if (!ac) return;
  if (ac.state === 'suspended') ac.resume().catch(() => undefined);
  const now = ac.currentTime;
  for (const [f, at, len] of CUES[name]) {
    const osc = ac.createOscillator();
    const gain = ac.createGain();
    osc.type = 'sine';
    osc.frequency.value = f;
    gain.gain.setValueAtTime(0.0001, now + at);
    gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    osc.connect(gain).connect(ac.destination);
    osc.start(now + at);
    osc.stop(now + at + len + 0.02);
  }
}

let wasYours = false;
/** @type {Notification|null} */
let note = null;

/**
 * The tab's title (with a mark while it is your turn) and, when the page
 * is hidden and your turn begins, a notification.
 * @param {boolean} yours @param {string} title @param {string} text
 */
export function turnAlert(yours, title, text) {
  if (title) document.title = `${yours ? '● ' : ''}${title}`;
  if (yours && !wasYours && document.hidden && notifyOn()) {
    try {
      note = new Notification(title, { body: text, tag: 'gore-turn' });
      note.onclick = () => { window.focus(); if (note) note.close(); };
    } catch (_) { note = null; }
  }
  if (!yours && note) { note.close(); note = null; }
  wasYours = yours;
}
