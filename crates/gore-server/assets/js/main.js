// @ts-check
// The app: `/` home, `/g/{id}` a game, `/rules` the rules, `/analysis` the
// analysis board, `/review/{id}` (or `/review`, an uploaded record) a game's
// review, `/learn` the lessons, `/puzzles` the puzzles, and the pages of
// the links that give a seat, `/join/{id}/{code}` and `/continue/{id}/{code}`.
// The server sends index.html for all of them; the page is chosen here from
// location.pathname, and only that page's code is loaded (a dynamic import;
// the server preloads it with the page). The server marks its 404 answers
// (`<meta name="gore-page" content="not-found">`): unknown addresses and
// games that do not exist show the not-found page.

import { initialLang, lang, onLangChange, setLang, t } from './i18n.js';
import { initMenu } from './menu.js';
import { startUserSocket } from './user.js';

/** @type {{render: () => void, destroy?: () => void} | null} */
let page = null;

/**
 * The app's own "page not found", in the reader's language.
 * @param {HTMLElement} main
 * @param {boolean} game whether the address was a game's
 */
function notFoundPage(main, game) {
  return {
    render() {
      main.textContent = '';
      const h1 = document.createElement('h1');
      h1.textContent = game ? t('game.notFound') : t('notFound.title');
      const text = document.createElement('p');
      text.textContent = game ? t('game.notFoundText') : t('notFound.text');
      const p = document.createElement('p');
      const a = document.createElement('a');
      a.href = '/';
      a.className = 'button primary';
      a.textContent = t('notFound.home');
      p.append(a);
      const section = document.createElement('section');
      section.className = 'card not-found';
      section.id = 'not-found';
      section.append(h1, text, p);
      main.append(section);
      document.title = `${h1.textContent} · Goré`;
    },
  };
}

async function route() {
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  if (page && page.destroy) page.destroy();
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const game = path.match(/^\/g\/([A-Za-z0-9_-]+)$/);
  const tournament = path.match(/^\/tournament\/([A-Za-z0-9_-]+)$/);
  const claim = path.match(/^\/(join|continue)\/([A-Za-z0-9_-]+)\/([^/]+)$/);
  const mark = document.querySelector('meta[name="gore-page"]');
  const missing = !!mark && mark.getAttribute('content') === 'not-found';
  document.querySelectorAll('.site-header nav a').forEach((a) => {
    const href = a.getAttribute('href');
    if (href === path && !missing) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  /** @type {{render: () => void, destroy?: () => void}} */
  let next;
  if (missing) next = notFoundPage(main, !!game);
  else if (game) next = (await import('./game.js')).gamePage(main, game[1]);
  else if (claim) next = (await import('./claim.js')).claimPage(main, claim[1] === 'join' ? 'join' : 'continue', claim[2], safeDecode(claim[3]));
  else if (path === '/rules') next = (await import('./rules.js')).rulesPage(main);
  else if (path.startsWith('/@/')) next = (await import('./player.js')).playerPage(main, safeDecode(path.slice(3)));
  else if (path === '/leaderboard') next = (await import('./player.js')).leaderboardPage(main);
  else if (path === '/bots') next = (await import('./player.js')).botsPage(main);
  else if (path === '/tournaments') next = (await import('./tournaments.js')).tournamentsPage(main);
  else if (tournament) next = (await import('./tournaments.js')).tournamentPage(main, tournament[1]);
  else if (path === '/analysis') next = (await import('./analysis.js')).analysisPage(main);
  else if (path === '/review' || path.startsWith('/review/')) next = (await import('./review.js')).reviewPage(main, path.startsWith('/review/') ? path.slice(8) : null);
  else if (path === '/learn') next = (await import('./learn.js')).learnPage(main);
  else if (path === '/puzzles') next = (await import('./puzzles.js')).puzzlesPage(main);
  else if (path === '/') next = (await import('./home.js')).homePage(main);
  else next = notFoundPage(main, false);
  page = next;
  main.textContent = '';
  page.render();
}

/** @param {string} s */
function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (_) { return s; }
}

async function start() {
  initMenu();
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang-select'));
  // A language chosen before this code ran (the list is in the HTML) or
  // while the words load is honoured: setLang lets the latest choice win.
  const early = select.selectedIndex > 0 ? select.value : null;
  select.addEventListener('change', () => {
    setLang(select.value, true);
  });
  onLangChange(() => {
    select.value = lang();
    if (page) page.render();
  });
  await setLang(early || initialLang(), !!early);
  select.value = lang();
  await route();
  startUserSocket();
  cacheForNextVisit();
}

/**
 * A first visit's page carries its code inline and names what the plain
 * page loads (`<script id="gore-cache">`): once this page is drawn, those
 * files go into the browser's cache, quietly, so that the next visit (the
 * server sends the plain page to a browser that has had one) finds them
 * there. `<html data-assets-cached>` says when it is done.
 */
function cacheForNextVisit() {
  const list = document.getElementById('gore-cache');
  if (!list) return;
  /** @type {string[]} */
  let urls = [];
  try { urls = JSON.parse(list.textContent || '[]'); } catch (_) { return; }
  const go = () => {
    // Where the page's own loading ends and this begins (a test reads it).
    performance.mark('gore-cache');
    Promise.all(urls.map((u) => fetch(u, /** @type {RequestInit} */ ({ priority: 'low' }))
      .then((r) => r.arrayBuffer()).catch(() => undefined)))
      .then(() => { document.documentElement.dataset.assetsCached = 'true'; });
  };
  if (document.readyState === 'complete') go();
  else window.addEventListener('load', go, { once: true });
}

start().catch((e) => {
  console.error(e);
  const main = document.getElementById('main');
  if (main) main.textContent = `Goré: ${e && e.message ? e.message : e}`;
});
