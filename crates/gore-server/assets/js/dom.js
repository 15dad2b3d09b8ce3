// @ts-check
// Small DOM helpers.

import { t } from './i18n.js';

/**
 * What the page carries for an address (`<script type="application/json"
 * data-gore-url="/api/lessons">`: the server put the data the page reads
 * first inside it), once: the element is removed, so that a later request
 * asks the server. `undefined` when it has none.
 * @param {string} path the address's path, as the server names it
 * @returns {unknown}
 */
export function carried(path) {
  for (const el of document.querySelectorAll('script[type="application/json"][data-gore-url]')) {
    if (el.getAttribute('data-gore-url') !== path) continue;
    el.remove();
    try { return JSON.parse(el.textContent || ''); } catch (_) { return undefined; }
  }
  return undefined;
}

/**
 * Creates an element: h('button', {class: 'x', onclick: f}, 'text', child).
 * Attributes starting with "on" are listeners; `null`/`false` ones are left out.
 * @param {string} tag
 * @param {Record<string, any>|null} [attrs]
 * @param {...(Node|string|number|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** Says something to screen readers through the live region. @param {string} text */
export function announce(text) {
  const live = document.getElementById('live');
  if (!live) return;
  live.textContent = '';
  // A fresh text node, so that repeated messages are read again.
  setTimeout(() => { live.textContent = text; }, 30);
}

let toastTimer = 0;
/** A short visible message (errors). @param {string} text */
export function toast(text) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => { el.hidden = true; }, 6000);
}

/**
 * A "Copy the link" button for a link shown in a read-only field: the
 * clipboard when the browser allows it, else the field selected for the
 * person to copy.
 * @param {string} idName the button's id
 * @param {string} url
 * @param {HTMLInputElement} input
 */
export function copyButton(idName, url, input) {
  return h('button', { type: 'button', id: idName, class: 'primary', onclick: async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast(t('invite.copied'));
    } catch (_) {
      input.focus();
      input.select();
      toast(t('invite.copyHint'));
    }
  } }, t('invite.copy'));
}

/**
 * A read-only field holding a link, selected when focused.
 * @param {string} idName
 * @param {string} url
 * @param {string} labelledBy the id of its label
 */
export function linkField(idName, url, labelledBy) {
  return /** @type {HTMLInputElement} */ (h('input', { id: idName, type: 'text', readonly: true, value: url, 'aria-labelledby': labelledBy, onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }));
}

/** The BOT mark beside a BOT account's name (its player page, the BOTs' list, its seat in a game). @param {string} [id] */
export function botMark(id) {
  return h('abbr', { class: 'bot-mark', id: id || null, title: t('bots.markLabel') }, t('bots.mark'));
}

/**
 * Redraws part of a page with `draw` as a person would not notice: the
 * keyboard focus comes back to the element of the same id, or to the link
 * to the same place with the same words (a standings' links have no id),
 * and the `<details>` that were open (by id) open again (issue 38: the
 * tournament pages redrew every 2 s and took the focus back to the body,
 * and closed an opened Swiss round).
 * @param {HTMLElement} root what `draw` replaces
 * @param {() => void} draw
 */
export function redrawKeeping(root, draw) {
  const was = document.activeElement;
  const inside = was instanceof HTMLElement && root.contains(was) ? was : null;
  const href = inside instanceof HTMLAnchorElement ? inside.getAttribute('href') : null;
  const words = inside ? inside.textContent : '';
  const open = [...root.querySelectorAll('details[open]')].map((d) => d.id).filter((x) => x);
  draw();
  for (const id of open) {
    const d = document.getElementById(id);
    if (d instanceof HTMLDetailsElement) d.open = true;
  }
  if (!inside) return;
  /** @type {Element|null} */
  let again = inside.id ? document.getElementById(inside.id) : null;
  if (!again && href !== null) {
    again = [...root.querySelectorAll('a')].find((a) => a.getAttribute('href') === href && a.textContent === words) || null;
  }
  if (again instanceof HTMLElement) again.focus();
}
