// @ts-check
// Translations: assets/i18n/strings.json, one table (each key with its text in every language), served as i18n/{lang}.json; flat keys, `{name}` placeholders.
// The language comes from localStorage ("gore.lang"), else navigator.languages,
// else English; <html lang> follows it.

export const LANGS = ['en', 'es', 'fr', 'eu'];
const STORE_KEY = 'gore.lang';

/** @type {Record<string, string>} */
let dict = {};
/** @type {Record<string, string>} */
let fallback = {};
let current = 'en';
/** How many languages were asked for: only the latest request applies. */
let asked = 0;
/** @type {Array<() => void>} */
const listeners = [];

/** The language to start with. */
export function initialLang() {
  try {
    const saved = localStorage.getItem(STORE_KEY);
    if (saved && LANGS.includes(saved)) return saved;
  } catch (_) { /* storage may be blocked */ }
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'];
  for (const l of wanted) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGS.includes(base)) return base;
  }
  return 'en';
}

/**
 * The address of one of the app's files (`i18n/en.json`, `img/board.svg`)
 * under this build's version (`/assets/v/<version>/…`, which the browser
 * keeps for good), as the page names it (`<meta name="gore-assets">`):
 * a module's own address may be a `data:` URL (a first visit's page
 * carries its modules inline).
 * @param {string} path
 */
export function assetUrl(path) {
  const meta = document.querySelector('meta[name="gore-assets"]');
  return new URL(path, new URL((meta && meta.getAttribute('content')) || '/assets/', location.href)).href;
}

/**
 * A language's strings: from the page when it carries them (a first
 * visit's page has English and the reader's language inside), else
 * fetched.
 * @param {string} lang
 */
async function load(lang) {
  const inline = document.getElementById(`gore-i18n-${lang}`);
  if (inline && inline.textContent) {
    try { return JSON.parse(inline.textContent); } catch (_) { /* fetched below */ }
  }
  const res = await fetch(assetUrl(`i18n/${lang}.json`));
  if (!res.ok) throw new Error(`i18n ${lang}: ${res.status}`);
  return res.json();
}

/**
 * Switches the language (loads it, sets <html lang>, translates the static
 * parts of the page and tells the listeners).
 * @param {string} lang
 * @param {boolean} remember whether the choice is saved
 */
export async function setLang(lang, remember) {
  if (!LANGS.includes(lang)) lang = 'en';
  const ticket = ++asked;
  // Both at once: on a slow connection each fetch costs a round trip.
  const [en, own] = await Promise.all([
    Object.keys(fallback).length ? fallback : load('en'),
    lang === 'en' ? null : load(lang),
  ]);
  fallback = en;
  // A later choice was made while these words loaded: it wins.
  if (ticket !== asked) return;
  dict = own || fallback;
  current = lang;
  document.documentElement.lang = lang;
  if (remember) {
    try { localStorage.setItem(STORE_KEY, lang); } catch (_) { /* ignore */ }
  }
  translateStatic(document);
  for (const f of listeners) f();
}

export function lang() { return current; }

/** @param {() => void} f called after every language change */
export function onLangChange(f) { listeners.push(f); }

/**
 * Translates a key.
 * @param {string} key
 * @param {Record<string, string|number>} [vars]
 */
export function t(key, vars) {
  let s = dict[key] ?? fallback[key];
  if (s === undefined) {
    console.warn('missing translation', key);
    s = key;
  }
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  return s;
}

/** Whether this page has words for `key` (in English at least). @param {string} key */
export function has(key) {
  return key in fallback;
}

/**
 * "7 seeds", "1 seed" (keys `<base>.one` / `<base>.other`, `{n}` inside).
 * @param {string} base
 * @param {number} n
 * @param {Record<string, string|number>} [vars]
 */
export function tn(base, n, vars) {
  const form = new Intl.PluralRules(current).select(n) === 'one' ? 'one' : 'other';
  return t(`${base}.${form}`, { n, ...(vars || {}) });
}

/**
 * A list of names joined as the language does it: "a1, a2 and a3".
 * @param {string[]} items
 */
export function tlist(items) {
  // A browser without this language's list format (Chromium has no Basque)
  // would silently use English ("a1 and a2"): then our own conjunction.
  try {
    if (Intl.ListFormat.supportedLocalesOf([current]).length) {
      return new Intl.ListFormat(current, { style: 'long', type: 'conjunction' }).format(items);
    }
  } catch (_) { /* no Intl.ListFormat: our own below */ }
  if (items.length < 2) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${t('list.and')} ${items[items.length - 1]}`;
}

/**
 * A game's rules in words, as the home page says them: "4 seeds per hole ·
 * No negotiation", or "Standard rules" (`rules` is the server's code,
 * e.g. `seeds=4,no-trades`). An option this page does not know is shown
 * as it is.
 * @param {string|null|undefined} rules
 */
export function rulesText(rules) {
  if (!rules || rules === 'standard') return t('home.summary.standard');
  return rules.split(',').map((opt) => {
    const [name, value] = opt.split('=');
    if (name === 'seeds' && value) return tn('home.summary.seeds', Number(value));
    if (name === 'ply-cap' && value) return tn('rules.plyCap', Number(value));
    const key = `home.rule.${name}`;
    return key in fallback ? t(key) : opt;
  }).join(' · ');
}

/**
 * A game's kind in words: a game with a BOT is "against a BOT", a lobby
 * game "against another player", wherever it is named (its page, one's
 * games).
 * @param {{mode?: string, lobby?: unknown, seats?: {A?: {kind: string, bot?: boolean}, B?: {kind: string, bot?: boolean}}}} g
 */
export function gameKind(g) {
  const bot = (/** @type {'A' | 'B'} */ p) => {
    const seat = g.seats && g.seats[p];
    return !!seat && seat.kind === 'human' && !!seat.bot;
  };
  if (bot('A') || bot('B')) return t('mode.bot');
  return g.lobby ? t('mode.lobby') : t(`mode.${g.mode || 'ai'}`);
}

/**
 * An action in words, as a noun (`a1`, "offer of a1 and a2", "accept"…),
 * for the sentences and lists of the analysis and review pages; `token`
 * is the record's (`offer:a1,a2`).
 * @param {string} token
 */
export function actionWords(token) {
  if (token.startsWith('offer:')) return t('action.offer', { holes: tlist(token.slice(6).split(',')) });
  if (token === 'accept' || token === 'decline' || token === 'pass') return t(`action.${token}`);
  return token;
}

/**
 * Fills elements marked with data-i18n (text), data-i18n-aria (aria-label)
 * and data-i18n-title (title).
 * @param {ParentNode} root
 */
export function translateStatic(root) {
  root.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.getAttribute('data-i18n') || ''); });
  root.querySelectorAll('[data-i18n-aria]').forEach((el) => { el.setAttribute('aria-label', t(el.getAttribute('data-i18n-aria') || '')); });
  root.querySelectorAll('[data-i18n-title]').forEach((el) => { el.setAttribute('title', t(el.getAttribute('data-i18n-title') || '')); });
}
