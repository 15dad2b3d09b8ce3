// @ts-check
// A player's page (`/@/{name}`): his ratings by pace, a chart of their
// history (SVG, drawn here from the server's points), his latest games with
// links to replay them, and his results against the AI levels; and the
// leaderboard of each pace (`/leaderboard`). The server computes every
// figure; the page draws them, names as text.

import { h } from './dom.js';
import { errorText } from './errors.js';
import { paceLabel } from './clock.js';
import { lang, t, tn } from './i18n.js';

const PACES = ['fast', 'slow', 'correspondence'];

/** @param {string} path */
async function getJson(path) {
  const r = await fetch(path, { headers: { Accept: 'application/json' } });
  const v = await r.json().catch(() => null);
  if (!r.ok) throw (v && v.error) || { code: `http_${r.status}`, message: r.statusText };
  return v;
}

/**
 * The history of one pace as a line (an SVG the page draws).
 * @param {{rating: number, at: number}[]} points
 */
export function chart(points) {
  const W = 600, H = 220, P = 34;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'rating-chart');
  svg.setAttribute('role', 'img');
  const el = (/** @type {string} */ tag, /** @type {Record<string, string|number>} */ attrs, /** @type {string} */ text = '') => {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text) e.textContent = text;
    svg.append(e);
    return e;
  };
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values, 1500) - 20;
  const hi = Math.max(...values, 1500) + 20;
  const x = (/** @type {number} */ i) => P + (points.length < 2 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (points.length - 1));
  const y = (/** @type {number} */ v) => H - P - ((v - lo) * (H - 2 * P)) / (hi - lo);
  el('line', { class: 'axis', x1: P, y1: H - P, x2: W - P, y2: H - P });
  el('line', { class: 'axis', x1: P, y1: P, x2: P, y2: H - P });
  el('text', { x: 2, y: y(hi) + 4 }, String(Math.round(hi)));
  el('text', { x: 2, y: y(lo) + 4 }, String(Math.round(lo)));
  el('polyline', { class: 'line', points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(' ') });
  points.forEach((p, i) => {
    const d = el('circle', { class: 'dot', cx: x(i), cy: y(p.rating), r: 4 });
    const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    title.textContent = `${p.rating}`;
    d.append(title);
  });
  svg.setAttribute('aria-label', t('player.chart', { from: values[0], to: values[values.length - 1], n: values.length }));
  return svg;
}

/**
 * A game's day as the page's language writes it ("3 dic 2026"); where the
 * browser has no data for the language (Chromium's Basque), the numbers
 * in Basque order, year first.
 * @param {number} ms Unix milliseconds
 */
export function dayText(ms) {
  const d = new Date(ms);
  const l = lang();
  if (Intl.DateTimeFormat.supportedLocalesOf([l]).length) return new Intl.DateTimeFormat(l, { dateStyle: 'medium' }).format(d);
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}/${two(d.getMonth() + 1)}/${two(d.getDate())}`;
}

/** The same day as `YYYY-MM-DD` (a `<time>`'s datetime). @param {number} ms */
function isoDay(ms) {
  const d = new Date(ms);
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/**
 * "against Yao", the name a link to his page when he has an account.
 * @param {{opponent: string, opponent_account?: string}} g
 */
function against(g) {
  // The sentence around the name, in whatever order the language puts it.
  const mark = '\u0001';
  const [before, after = ''] = t('player.against', { name: mark }).split(mark);
  const who = g.opponent_account
    ? h('a', { class: 'opponent', href: `/@/${encodeURIComponent(g.opponent_account)}` }, g.opponent)
    : g.opponent;
  return h('span', { class: 'who' }, before, who, after);
}

/** @param {HTMLElement} main @param {string} name */
export function playerPage(main, name) {
  /** @type {any} */
  let data = null;
  /** @type {string|null} */
  let error = null;
  function render() {
    document.title = `Goré · ${name}`;
    main.textContent = '';
    if (error) {
      main.append(h('section', { class: 'card' }, h('h1', null, t('notFound.title')), h('p', null, error)));
      return;
    }
    if (!data) {
      main.append(h('p', { class: 'loading' }, t('common.loading')));
      return;
    }
    const page = h('div', { class: 'player-page', id: 'player-page', 'data-id': data.id });
    page.append(h('h1', { id: 'player-name' }, data.name));
    const ratings = h('div', { class: 'ratings-row', id: 'ratings' });
    if (!data.ratings.length) ratings.append(h('p', { class: 'muted' }, t('player.noRatings')));
    for (const r of data.ratings) {
      ratings.append(h('div', { class: 'rating-card', id: `rating-${r.pace}` },
        h('div', { class: 'muted' }, t(`pace.${r.pace}`)),
        h('div', { class: 'big' }, r.shown),
        h('div', { class: 'hint' }, tn('player.ratingGames', r.games, { dev: r.deviation }))));
    }
    page.append(h('section', { class: 'card' }, h('h2', null, t('player.ratings')), ratings));
    for (const pace of PACES) {
      const points = data.history.filter((/** @type {any} */ p) => p.pace === pace);
      if (!points.length) continue;
      // The start of the line: the rating before the first game.
      const line = [{ rating: 1500, at: 0 }, ...points];
      page.append(h('section', { class: 'card', id: `history-${pace}` }, h('h2', null, t('player.history', { pace: t(`pace.${pace}`) })), chart(line)));
    }
    const games = h('ul', { class: 'lobby-list', id: 'player-games' });
    if (!data.games.length) games.append(h('li', { class: 'muted' }, t('player.noGames')));
    for (const g of data.games) {
      games.append(h('li', { 'data-id': g.id },
        h('time', { class: 'game-date', datetime: isoDay(g.created_at) }, dayText(g.created_at)),
        against(g),
        h('span', { class: `terms result-${g.result || 'none'}` }, g.result ? t(`player.result.${g.result}`) : t('player.result.none')),
        h('span', { class: 'terms' }, [g.clock ? paceLabel(g.clock) : t('lobby.noClock'), g.rated ? t('lobby.rated') : t('lobby.casual')].join(' · ')),
        h('a', { class: 'button small', href: g.url }, t('player.replay'))));
    }
    page.append(h('section', { class: 'card' }, h('h2', null, t('player.games')), games));
    if (data.ai.length) {
      const table = h('table', { class: 'results-table', id: 'ai-results' },
        h('thead', null, h('tr', null, h('th', null, t('player.level')), h('th', null, t('player.wins')), h('th', null, t('player.draws')), h('th', null, t('player.losses')))));
      const body = h('tbody');
      for (const r of data.ai) body.append(h('tr', null, h('td', null, t('home.levelOption', { n: r.level, name: t(`level.${r.level}.name`) })), h('td', null, r.wins), h('td', null, r.draws), h('td', null, r.losses)));
      table.append(body);
      page.append(h('section', { class: 'card' }, h('h2', null, t('player.vsAi')), table));
    }
    main.append(page);
  }
  getJson(`/api/players/${encodeURIComponent(name)}`).then((v) => { data = v; render(); }, (e) => { error = errorText(e); render(); });
  return { render };
}

/** @param {HTMLElement} main */
export function leaderboardPage(main) {
  /** @type {Record<string, any[]>} */
  const boards = {};
  function render() {
    document.title = `Goré · ${t('leaderboard.title')}`;
    main.textContent = '';
    const page = h('div', { class: 'leaderboard', id: 'leaderboard' }, h('h1', null, t('leaderboard.title')));
    for (const pace of PACES) {
      const list = h('ol', { class: 'lobby-list', id: `board-${pace}` });
      const rows = boards[pace];
      if (!rows) list.append(h('li', { class: 'muted' }, t('common.loading')));
      else if (!rows.length) list.append(h('li', { class: 'muted' }, t('leaderboard.empty')));
      else for (const r of rows) list.append(h('li', null, h('a', { class: 'who', href: `/@/${encodeURIComponent(r.name)}` }, r.name), h('span', { class: 'terms' }, r.shown)));
      page.append(h('section', { class: 'card' }, h('h2', null, t(`pace.${pace}`)), list));
    }
    main.append(page);
  }
  for (const pace of PACES) {
    getJson(`/api/leaderboard/${pace}`).then((v) => { boards[pace] = v; render(); }, () => { boards[pace] = []; render(); });
  }
  return { render };
}
