// @ts-check
// A player's page (`/@/{name}`): his ratings by pace, a chart of their
// history (SVG, drawn here from the server's points), his latest games with
// links to replay them, and his results against the AI levels; a BOT's
// page also has a form to challenge it (docs/API.md, "Bots"). The
// leaderboard of each pace (`/leaderboard`), people and BOTs apart, and
// the list of BOTs (`/bots`). The server computes every figure; the page
// draws them, names as text.

import { getMe } from './api.js';
import { botMark, h } from './dom.js';
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

/** The paces a challenge may have: the server's (the page's defaults), else a few. */
function paces() {
  const meta = document.querySelector('meta[name="gore-defaults"]');
  try {
    const v = JSON.parse((meta && meta.getAttribute('content')) || '{}');
    if (Array.isArray(v.paces)) {
      const ok = v.paces.filter((/** @type {unknown} */ p) => typeof p === 'string' && /^\d+(\+\d+|d)$/.test(p));
      if (ok.length) return /** @type {string[]} */ (ok);
    }
  } catch (_) { /* the few below */ }
  return ['3+2', '5+3', '10+5', '15+10', '1d'];
}

/**
 * A challenge sent to a BOT (docs/API.md, "Bots"), as the page follows it.
 * @typedef {{id: string, status: string, declineReason?: string, game?: string}} Challenge
 */

/**
 * The form that challenges the BOT `bot` (a logged-in person's), and what
 * became of the challenge: pending (it can be withdrawn), declined with
 * the BOT's reason, lapsed unanswered, or accepted (the page goes to the
 * game). The answer is waited for with `GET /api/challenge/{id}?wait=25`,
 * asked again until it comes.
 * @param {{name: string}} bot
 * @param {() => void} redrawPage
 */
function challengeCard(bot, redrawPage) {
  /** Draws the page again; the focus, if it was in the card, goes to its button. */
  const redraw = () => {
    const card = document.getElementById('bot-challenge');
    const inside = !!card && card.contains(document.activeElement);
    redrawPage();
    const next = document.getElementById(pending ? 'bot-challenge-cancel' : 'bot-challenge-send');
    if (inside && next) next.focus();
  };
  /** @type {Challenge|null} */
  let pending = null;
  /** @type {string} */
  let said = '';
  let alive = true;
  let sending = false;
  const choices = { clock: paces().includes('5+3') ? '5+3' : paces()[0], colour: 'random', rated: false, seeds: 6, noTrades: false };

  /** @param {string} id */
  async function follow(id) {
    while (alive && pending && pending.id === id) {
      const asked = Date.now();
      let v;
      try {
        const r = await fetch(`/api/challenge/${encodeURIComponent(id)}?wait=25`, { headers: { Accept: 'application/json' } });
        v = await r.json().catch(() => null);
        if (!r.ok) throw (v && v.error) || { code: `http_${r.status}` };
      } catch (e) {
        if (!alive || !pending || pending.id !== id) return;
        // A network fault or a restart: ask again in a moment.
        await new Promise((ok) => setTimeout(ok, 1000));
        continue;
      }
      if (!alive || !pending || pending.id !== id) return;
      /** @type {Challenge} */
      const c = v.challenge;
      if (c.status === 'created') {
        // A server that answers at once (one that is stopping) is not asked in a tight loop.
        if (Date.now() - asked < 1000) await new Promise((ok) => setTimeout(ok, 1000));
        continue;
      }
      pending = null;
      if (c.status === 'accepted' && c.game) {
        said = t('bots.accepted', { name: bot.name });
        redraw();
        location.assign(`/g/${encodeURIComponent(c.game)}`);
        return;
      }
      const reason = c.declineReason || 'generic';
      // Canceled while this page still followed it: not by this page, so it lapsed
      // unanswered (or another tab withdrew it).
      said = c.status === 'declined'
        ? t('bots.declined', { name: bot.name, reason: t(`bots.decline.${reason}`) })
        : t('bots.lapsed');
      redraw();
    }
  }

  /** @param {SubmitEvent} e */
  async function send(e) {
    e.preventDefault();
    if (sending || pending) return;
    sending = true;
    said = '';
    const rules = [choices.seeds !== 6 ? `seeds=${choices.seeds}` : '', choices.noTrades ? 'no-trades' : ''].filter(Boolean).join(',') || 'standard';
    const body = { rules, clock: choices.clock === 'none' ? null : choices.clock, colour: choices.colour, rated: choices.rated };
    try {
      const r = await fetch(`/api/challenge/${encodeURIComponent(bot.name)}`, {
        method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, body: JSON.stringify(body),
      });
      const v = await r.json().catch(() => null);
      if (!r.ok) throw (v && v.error) || { code: `http_${r.status}` };
      pending = v.challenge;
      if (pending) follow(pending.id);
    } catch (err) {
      said = errorText(/** @type {any} */ (err));
    }
    sending = false;
    redraw();
  }

  /** Withdraws the pending challenge. @param {boolean} leaving the page is going: the request outlives it */
  function cancel(leaving) {
    if (!pending) return;
    const id = pending.id;
    pending = null;
    said = leaving ? '' : t('bots.canceled');
    fetch(`/api/challenge/${encodeURIComponent(id)}/cancel`, { method: 'POST', keepalive: true, headers: { Accept: 'application/json' } }).catch(() => {});
  }
  const onHide = () => cancel(true);
  window.addEventListener('pagehide', onHide);

  function card() {
    const status = h('p', { class: 'bot-challenge-status', id: 'bot-challenge-status', role: 'status' },
      pending ? t('bots.waiting', { name: bot.name }) : said);
    if (pending) {
      return h('section', { class: 'card bot-challenge', id: 'bot-challenge', 'aria-labelledby': 'bot-challenge-title' },
        h('h2', { id: 'bot-challenge-title' }, t('bots.challengeTitle', { name: bot.name })),
        status,
        h('p', null, h('button', { type: 'button', id: 'bot-challenge-cancel', class: 'small', onclick: () => { cancel(false); redraw(); } }, t('bots.cancel'))));
    }
    const clock = h('select', { id: 'bot-clock', name: 'clock', onchange: (/** @type {Event} */ e) => { choices.clock = /** @type {HTMLSelectElement} */ (e.target).value; } },
      ...paces().map((p) => h('option', { value: p, selected: choices.clock === p }, paceLabel(p))),
      h('option', { value: 'none', selected: choices.clock === 'none' }, t('home.clock.none')));
    const seeds = h('select', { id: 'bot-seeds', name: 'seeds', onchange: (/** @type {Event} */ e) => { choices.seeds = Number(/** @type {HTMLSelectElement} */ (e.target).value); } });
    for (let n = 3; n <= 8; n++) seeds.append(h('option', { value: n, selected: choices.seeds === n }, t('home.seeds.option', { n, total: 8 * n })));
    const radio = (/** @type {string} */ value) => h('label', { class: 'choice' },
      h('input', { type: 'radio', name: 'bot-colour', value, id: `bot-colour-${value}`, checked: choices.colour === value, onchange: () => { choices.colour = value; } }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t(`home.colour.${value}`))));
    const box = (/** @type {string} */ id, /** @type {string} */ label, /** @type {boolean} */ on, /** @type {(v: boolean) => void} */ set) => h('label', { class: 'choice', for: id },
      h('input', { type: 'checkbox', id, checked: on, onchange: (/** @type {Event} */ e) => set(/** @type {HTMLInputElement} */ (e.target).checked) }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, label)));
    const form = h('form', { class: 'card bot-challenge', id: 'bot-challenge', 'aria-labelledby': 'bot-challenge-title' },
      h('h2', { id: 'bot-challenge-title' }, t('bots.challengeTitle', { name: bot.name })),
      h('div', { class: 'options-grid' },
        h('fieldset', null,
          h('legend', null, t('bots.clock')),
          h('label', { class: 'field', for: 'bot-clock' }, h('span', null, t('home.clock.label')), clock),
          box('bot-rated', t('bots.rated'), choices.rated, (v) => { choices.rated = v; })),
        h('fieldset', null,
          h('legend', null, t('home.colour')),
          h('div', { class: 'inline-choices' }, radio('A'), radio('B'), radio('random'))),
        h('fieldset', null,
          h('legend', null, t('home.ruleOptions')),
          h('label', { class: 'field', for: 'bot-seeds' }, h('span', null, t('home.seeds')), seeds),
          box('bot-no-trades', t('home.rule.no-trades'), choices.noTrades, (v) => { choices.noTrades = v; }))),
      h('p', null, h('button', { type: 'submit', id: 'bot-challenge-send', class: 'primary', disabled: sending }, t('bots.send'))),
      status);
    form.addEventListener('submit', send);
    return form;
  }

  return {
    card,
    destroy() {
      cancel(true);
      alive = false;
      window.removeEventListener('pagehide', onHide);
    },
  };
}

/** @param {HTMLElement} main @param {string} name */
export function playerPage(main, name) {
  /** @type {any} */
  let data = null;
  /** @type {string|null} */
  let error = null;
  /** @type {{name: string, id?: string, account?: boolean}|null} */
  let me = null;
  /** @type {ReturnType<typeof challengeCard>|null} */
  let challenge = null;
  /** Whether this BOT's event stream is open (`null`: not known yet, or a person). @type {boolean|null} */
  let online = null;
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
    if (data.bot) {
      const presence = online === null ? null
        : h('span', { class: `presence ${online ? 'online' : 'offline'}`, id: 'bot-presence' }, t(online ? 'bots.online' : 'bots.offline'));
      page.append(h('p', { class: 'bot-line', id: 'bot-line' }, botMark(), ' ', presence, ' ', t('bots.about'), ' ', h('a', { href: '/bots' }, t('bots.all'))));
      // A person challenges it; the BOT's own session does not.
      if (me && me.account && me.id !== data.id) {
        if (!challenge) challenge = challengeCard(data, render);
        page.append(challenge.card());
      } else if (me && !me.account) {
        page.append(h('section', { class: 'card bot-challenge', id: 'bot-challenge' },
          h('h2', null, t('bots.challengeTitle', { name: data.name })),
          h('p', null, t('bots.loginFirst'), ' ', h('a', { href: '/', id: 'bot-login' }, t('bots.login')))));
      }
    }
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
    const played = h('ul', { class: 'lobby-list', id: 'player-tournaments' });
    const tours = data.tournaments || [];
    if (!tours.length) played.append(h('li', { class: 'muted' }, t('player.noTournaments')));
    for (const x of tours) {
      const phase = x.phase === 'upcoming' ? t('player.tournamentUpcoming') : x.phase === 'finished' ? null : t('player.tournamentRunning');
      played.append(h('li', { 'data-id': x.id },
        h('time', { class: 'game-date', datetime: isoDay(x.starts_at) }, dayText(x.starts_at)),
        h('a', { class: 'who', href: x.url }, x.name),
        h('span', { class: 'terms' }, [t(`player.tournamentKind.${x.kind}`), t('player.tournamentRank', { rank: x.rank, n: x.players }), tn('player.tournamentPoints', x.score), phase].filter(Boolean).join(' · '))));
    }
    // A BOT plays no tournament unless its creator allows bots: no empty list for it.
    if (tours.length || !data.bot) page.append(h('section', { class: 'card' }, h('h2', null, t('player.tournaments')), played));
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
  getJson(`/api/players/${encodeURIComponent(name)}`).then((v) => {
    data = v;
    render();
    // A BOT: online or not, from the bots' list.
    if (v.bot) {
      getJson('/api/bots').then((/** @type {{bots: {id: string, online: boolean}[]}} */ l) => {
        const me = l.bots.find((b) => b.id === v.id);
        if (me) { online = me.online; render(); }
      }, () => {});
    }
  }, (e) => { error = errorText(e); render(); });
  getMe().then((m) => { me = m; if (data) render(); }, () => {});
  return {
    render,
    destroy() { if (challenge) challenge.destroy(); },
  };
}

/** @param {HTMLElement} main */
export function botsPage(main) {
  /** @type {{id: string, name: string, online: boolean, ratings: {pace: string, shown: string}[]}[]|null} */
  let bots = null;
  /** @type {string|null} */
  let error = null;
  function render() {
    document.title = `Goré · ${t('bots.title')}`;
    main.textContent = '';
    const list = h('ul', { class: 'lobby-list bot-list', id: 'bot-list' });
    if (error) list.append(h('li', { class: 'muted' }, error));
    else if (!bots) list.append(h('li', { class: 'muted' }, t('common.loading')));
    else if (!bots.length) list.append(h('li', { class: 'muted' }, t('bots.empty')));
    else for (const b of bots) {
      const href = `/@/${encodeURIComponent(b.name)}`;
      list.append(h('li', { 'data-id': b.id },
        h('a', { class: 'who', href }, b.name), botMark(),
        h('span', { class: `presence ${b.online ? 'online' : 'offline'}` }, t(b.online ? 'bots.online' : 'bots.offline')),
        h('span', { class: 'terms' }, b.ratings.length ? b.ratings.map((r) => `${t(`pace.${r.pace}`)} ${r.shown}`).join(' · ') : t('bots.unrated')),
        h('a', { class: 'button small', href, 'aria-label': t('bots.challengeTitle', { name: b.name }) }, t('bots.challenge'))));
    }
    main.append(h('div', { class: 'bots-page', id: 'bots-page' },
      h('h1', null, t('bots.title')),
      h('section', { class: 'card' }, h('p', { class: 'hint' }, t('bots.intro')), list)));
  }
  getJson('/api/bots').then((v) => { bots = v.bots; render(); }, (e) => { error = errorText(e); render(); });
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
      const section = h('section', { class: 'card' }, h('h2', null, t(`pace.${pace}`)), list);
      // The BOTs of the pace apart, below the people (only where some are rated).
      const bots = boards[`${pace}-bots`];
      if (bots && bots.length) {
        const botList = h('ol', { class: 'lobby-list', id: `board-${pace}-bots` });
        for (const r of bots) botList.append(h('li', null, h('a', { class: 'who', href: `/@/${encodeURIComponent(r.name)}` }, r.name), botMark(), h('span', { class: 'terms' }, r.shown)));
        list.before(h('h3', null, t('leaderboard.people')));
        section.append(h('h3', null, t('leaderboard.bots')), botList);
      }
      page.append(section);
    }
    main.append(page);
  }
  for (const pace of PACES) {
    getJson(`/api/leaderboard/${pace}?bots=false`).then((v) => { boards[pace] = v; render(); }, () => { boards[pace] = []; render(); });
    getJson(`/api/leaderboard/${pace}?bots=true`).then((v) => { boards[`${pace}-bots`] = v; render(); }, () => {});
  }
  return { render };
}
