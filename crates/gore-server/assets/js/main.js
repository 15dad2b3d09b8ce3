// @ts-check
// The app: `/` home, `/g/{id}` a game, `/rules` the rules, and the pages of
// the links that give a seat, `/join/{id}/{code}` and `/continue/{id}/{code}`.
// The server sends index.html for all of them; the page is chosen here from
// location.pathname.

import { initialLang, lang, onLangChange, setLang, t } from './i18n.js';
import { homePage } from './home.js';
import { gamePage } from './game.js';
import { rulesPage } from './rules.js';
import { claimPage } from './claim.js';

/** @type {{render: () => void, destroy?: () => void} | null} */
let page = null;

function route() {
  const main = /** @type {HTMLElement} */ (document.getElementById('main'));
  if (page && page.destroy) page.destroy();
  main.textContent = '';
  const path = location.pathname.replace(/\/+$/, '') || '/';
  const game = path.match(/^\/g\/([A-Za-z0-9_-]+)$/);
  const claim = path.match(/^\/(join|continue)\/([A-Za-z0-9_-]+)\/([^/]+)$/);
  document.querySelectorAll('.site-header nav a').forEach((a) => {
    const href = a.getAttribute('href');
    if (href === path) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  if (game) page = gamePage(main, game[1]);
  else if (claim) page = claimPage(main, claim[1] === 'join' ? 'join' : 'continue', claim[2], safeDecode(claim[3]));
  else if (path === '/rules') page = rulesPage(main);
  else if (path === '/') page = homePage(main);
  else {
    page = {
      render() {
        main.textContent = '';
        const h1 = document.createElement('h1');
        h1.textContent = t('notFound.title');
        const p = document.createElement('p');
        const a = document.createElement('a');
        a.href = '/';
        a.textContent = t('notFound.home');
        p.append(a);
        main.append(h1, p);
        document.title = `${t('notFound.title')} · Goré`;
      },
    };
  }
  page.render();
}

/** @param {string} s */
function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (_) { return s; }
}

async function start() {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('lang-select'));
  await setLang(initialLang(), false);
  select.value = lang();
  select.addEventListener('change', async () => {
    await setLang(select.value, true);
  });
  onLangChange(() => {
    select.value = lang();
    if (page) page.render();
  });
  route();
}

start().catch((e) => {
  console.error(e);
  const main = document.getElementById('main');
  if (main) main.textContent = `Goré: ${e && e.message ? e.message : e}`;
});
