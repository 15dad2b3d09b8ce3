// @ts-check
// The lobby on the home page: quick pairing by pace, the open challenges
// (accepted in one click), and the games being played, all live over the
// lobby socket. The server pairs; the page shows what it says and, once
// paired, opens the game. Names are shown as text, never as HTML.

import { getMe, keepAlive } from './api.js';
import { paceLabel } from './clock.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { rulesText, t, tn } from './i18n.js';

/**
 * @typedef {import('./wire.js').LobbyState} LobbyState
 * @typedef {import('./wire.js').LobbyMsg} LobbyMsg
 */

/**
 * The lobby's section. `terms()` gives the challenge the player would post
 * (the new game's options: rules, clock, colour).
 * @param {{terms: () => {rules: string, clock: string, colour: string}}} opts
 */
export function lobbySection(opts) {
  /** @type {LobbyState} */
  let state = { paces: [], challenges: [], games: [] };
  let you = '';
  /** @type {string|null} the pace being sought */
  let seeking = null;
  /** @type {WebSocket|null} */
  let ws = null;
  let retry = 500;
  let closed = false;

  const status = h('p', { class: 'lobby-status muted', id: 'lobby-status', role: 'status' }, t('common.loading'));
  const quick = h('div', { class: 'pace-buttons', id: 'quick-pairing' });
  const seekLine = h('p', { class: 'seek-line', id: 'seek-line', hidden: true });
  const challenges = h('ul', { class: 'lobby-list', id: 'challenges' });
  const games = h('ul', { class: 'lobby-list', id: 'playing-now' });
  const create = h('button', { type: 'button', id: 'create-challenge', class: 'small', onclick: postChallenge }, t('lobby.create'));
  // Rated games are for accounts: the switch shows once the server says
  // this browser is logged in.
  const rated = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'rated' }));
  const ratedBox = h('label', { class: 'choice', for: 'rated', hidden: true }, rated, h('span', null, t('lobby.ratedLabel')));
  // "Casual games" for everyone; an account may tick "Rated" below it.
  const quickHint = h('p', { class: 'hint', id: 'quick-hint' }, t('lobby.quick.hint'));
  const section = h('section', { class: 'card lobby', id: 'lobby', 'aria-labelledby': 'lobby-title' },
    h('h2', { id: 'lobby-title' }, t('lobby.title')),
    status,
    h('h3', null, t('lobby.quick')),
    quickHint,
    ratedBox,
    quick,
    seekLine,
    h('h3', null, t('lobby.challenges')),
    challenges,
    h('p', { class: 'hint' }, t('lobby.create.hint'), ' ', create),
    h('h3', null, t('lobby.playing')),
    games,
    h('p', null, h('a', { href: '/leaderboard', id: 'leaderboard-link' }, t('nav.leaderboard'))));

  /** A message to the server (`seek`, `challenge`, `accept`, `cancel`). @param {{type: string} & Record<string, unknown>} msg */
  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify(msg));
      return true;
    }
    toast(t('lobby.offline'));
    return false;
  }

  /** @param {string} pace */
  function seek(pace) {
    if (seeking === pace) {
      send({ type: 'cancel' });
      return;
    }
    if (send({ type: 'seek', clock: pace, rated: rated.checked })) {
      seeking = pace;
      draw();
    }
  }

  function postChallenge() {
    const c = opts.terms();
    if (send({ type: 'challenge', rules: c.rules, clock: c.clock, colour: c.colour, rated: rated.checked })) seeking = null;
  }

  function draw() {
    /** For tests: what the lobby shows. */
    /** @type {any} */ (window).goreLobby = { state, you, seeking };
    quick.textContent = '';
    state.paces.forEach((p, i) => {
      quick.append(h('button', {
        type: 'button', class: `pace${seeking === p ? ' seeking' : ''}`, id: `seek-${i}`, 'data-pace': p,
        'aria-pressed': seeking === p ? 'true' : 'false', onclick: () => seek(p),
      }, h('span', { class: 'pace-main' }, p), h('span', { class: 'pace-sub' }, paceLabel(p))));
    });
    seekLine.hidden = !seeking;
    seekLine.textContent = '';
    if (seeking) {
      seekLine.append(h('span', { class: 'spinner', 'aria-hidden': 'true' }),
        t('lobby.seeking', { pace: paceLabel(seeking) }), ' ',
        h('button', { type: 'button', class: 'small', id: 'cancel-seek', onclick: () => send({ type: 'cancel' }) }, t('lobby.cancel')));
    }
    challenges.textContent = '';
    const open = state.challenges;
    if (!open.length) challenges.append(h('li', { class: 'muted' }, t('lobby.noChallenges')));
    for (const c of open) {
      const mine = c.by === you;
      const terms = [
        c.rating || null,
        c.clock ? paceLabel(c.clock) : t('lobby.noClock'),
        c.rules !== 'standard' ? rulesText(c.rules) : null,
        t(`lobby.colour.${c.colour || 'random'}`),
        c.rated ? t('lobby.rated') : t('lobby.casual'),
      ].filter((x) => x !== null).join(' · ');
      challenges.append(h('li', { class: `challenge${mine ? ' mine' : ''}`, 'data-id': c.id },
        h('span', { class: 'who' }, c.name),
        h('span', { class: 'terms' }, terms),
        mine
          ? h('button', { type: 'button', class: 'small', 'data-cancel': c.id, onclick: () => send({ type: 'cancel' }) }, t('lobby.cancel'))
          : h('button', { type: 'button', class: 'small primary', 'data-accept': c.id, onclick: () => send({ type: 'accept', id: c.id }) }, t('lobby.accept'))));
    }
    games.textContent = '';
    if (!state.games.length) games.append(h('li', { class: 'muted' }, t('lobby.noGames')));
    for (const g of state.games) {
      const [a, b] = g.names.map((n, i) => {
        const name = n || t('player.player', { player: i ? 'B' : 'A' });
        const r = g.ratings && g.ratings[i];
        return r ? `${name} (${r})` : name;
      });
      games.append(h('li', { class: 'playing', 'data-id': g.id },
        h('span', { class: 'who' }, `${a} – ${b}`),
        h('span', { class: 'terms' }, [g.clock ? paceLabel(g.clock) : t('lobby.noClock'), tn('lobby.spectators', g.spectators || 0)].join(' · ')),
        h('a', { href: g.url, class: 'button small' }, t('lobby.watch'))));
    }
  }

  /** @param {LobbyMsg} m */
  function onMessage(m) {
    if (m.type === 'hello') you = m.you;
    else if (m.type === 'lobby') {
      state = m;
      // A seek of mine no longer listed was taken or withdrawn.
      if (seeking && !state.challenges.some((c) => c.by === you && c.quick)) seeking = null;
    } else if (m.type === 'waiting') {
      const c = state.challenges.find((x) => x.id === m.id);
      if (!seeking && !c) toast(t('lobby.posted'));
    } else if (m.type === 'cancelled') seeking = null;
    else if (m.type === 'paired') {
      toast(t('lobby.paired'));
      closed = true;
      if (ws) ws.close();
      location.assign(m.url);
      return;
    } else if (m.type === 'error') {
      seeking = null;
      toast(t('error.action', { message: errorText(m.error) }));
    }
    draw();
  }

  function connect() {
    if (closed || !section.isConnected && ws) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    ws = new WebSocket(`${proto}//${location.host}/api/lobby/ws`);
    keepAlive(ws);
    ws.onopen = () => {
      retry = 500;
      status.textContent = t('lobby.live');
      status.dataset.live = '1';
    };
    ws.onmessage = (e) => {
      try { onMessage(JSON.parse(e.data)); } catch (_) { /* not ours */ }
    };
    ws.onclose = () => {
      status.dataset.live = '0';
      if (closed) return;
      status.textContent = t('lobby.offline');
      seeking = null;
      window.setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10_000);
    };
  }

  // The socket needs the browser's session, which the first GET gives.
  getMe().then((m) => {
    ratedBox.hidden = !m.account;
    quickHint.textContent = t(m.account ? 'lobby.quick.hintAccount' : 'lobby.quick.hint');
    connect();
  }, connect);
  draw();
  return {
    section,
    close: () => {
      closed = true;
      if (ws) ws.close();
    },
  };
}
