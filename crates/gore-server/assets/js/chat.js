// @ts-check
// The chat of a game between two people, for its two players: short
// messages shown as text (never HTML), a mute switch, and a report button
// that hides the reported player's messages for the reporter. The server
// checks and limits every message; the page shows what it says.

import { reportChat } from './api.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { t } from './i18n.js';

const MUTE_KEY = 'gore.chatMuted';

/**
 * The chat panel. `send(text)` sends over the socket (false if closed);
 * `nameOf(seat)` says who wrote a line, as the players' cards name him.
 * @param {string} id @param {() => string|null} you @param {(text: string) => boolean} send
 * @param {(seat: 'A'|'B') => string} nameOf
 */
export function chatPanel(id, you, send, nameOf) {
  /** @type {Map<number, {n: number, from: string, text: string}>} */
  const lines = new Map();
  const hiddenKey = `gore.chatHidden.${id}`;
  /** @type {Set<string>} players whose messages this reader hid */
  let hidden = new Set();
  try { hidden = new Set(JSON.parse(localStorage.getItem(hiddenKey) || '[]')); } catch (_) { /* none */ }
  let muted = false;
  try { muted = localStorage.getItem(MUTE_KEY) === '1'; } catch (_) { /* not muted */ }

  const list = h('ol', { class: 'chat-lines', id: 'chat-lines', 'aria-live': 'polite' });
  const input = /** @type {HTMLInputElement} */ (h('input', { id: 'chat-input', maxlength: 200, autocomplete: 'off', 'aria-label': t('chat.placeholder'), placeholder: t('chat.placeholder') }));
  const form = h('form', { id: 'chat-form', class: 'chat-form' }, input, h('button', { type: 'submit', class: 'small', id: 'chat-send' }, t('chat.send')));
  const mute = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'chat-mute', checked: muted }));
  const panel = h('section', { class: 'card chat', id: 'chat', 'aria-labelledby': 'chat-title' },
    h('h2', { id: 'chat-title' }, t('chat.title')),
    h('label', { class: 'choice', for: 'chat-mute' }, mute, h('span', null, t('chat.mute'))),
    list, form);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (send(text)) input.value = '';
    else toast(t('status.offline'));
  });
  mute.addEventListener('change', () => {
    muted = mute.checked;
    try { localStorage.setItem(MUTE_KEY, muted ? '1' : '0'); } catch (_) { /* ignore */ }
    draw();
  });

  function draw() {
    list.textContent = '';
    list.hidden = muted;
    form.hidden = muted;
    for (const l of [...lines.values()].sort((a, b) => a.n - b.n)) {
      if (hidden.has(l.from)) continue;
      const mine = l.from === you();
      list.append(h('li', { class: `chat-line${mine ? ' mine' : ''}`, 'data-n': l.n },
        h('span', { class: `swatch swatch-${l.from}`, 'aria-hidden': 'true' }, l.from),
        h('span', { class: 'chat-who' }, l.from === 'A' || l.from === 'B' ? nameOf(l.from) : l.from),
        h('span', { class: 'chat-text' }, l.text),
        mine ? null : h('button', { type: 'button', class: 'ghost small report', 'data-report': l.n, title: t('chat.report'), onclick: () => report(l) }, t('chat.report'))));
    }
    list.scrollTop = list.scrollHeight;
  }

  /** @param {{n: number, from: string}} l */
  async function report(l) {
    try {
      await reportChat(id, l.n);
      hidden.add(l.from);
      try { localStorage.setItem(hiddenKey, JSON.stringify([...hidden])); } catch (_) { /* ignore */ }
      toast(t('chat.reported'));
      draw();
    } catch (e) {
      toast(errorText(/** @type {import('./api.js').ApiError} */ (e)));
    }
  }

  return {
    panel,
    /** @param {import('./wire.js').ChatLine[]} incoming @param {boolean} history */
    take(incoming, history) {
      if (history) lines.clear();
      for (const l of incoming) lines.set(l.n, l);
      draw();
    },
  };
}
