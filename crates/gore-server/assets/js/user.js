// @ts-check
// The user socket (`/api/user/ws`): every page opens it once the browser
// has a session, and it carries the player's own events (docs/API.md,
// "The user socket"). A game started for him that this page is not
// showing (an arena's next pairing while he reads his result, a challenge
// accepted, a lobby pairing) is announced in a bar that stays until he
// goes or dismisses it: any page can take him to his new game.

import { keepAlive } from './api.js';
import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * A `gameStart` event's game, as the stream writes it.
 * @typedef {{id: string, url: string, colour: string|null, source?: string, tournamentId?: string, swissId?: string,
 *   opponent: {id: string|null, name: string|null, bot: boolean}|null}} StartedGame
 */

/** The games announced (each once). */
const told = new Set();

/** The game this page shows, if any. */
function shownGame() {
  const m = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)/);
  return m ? m[1] : null;
}

/**
 * Calls the player to a game made for him (a pairing, a challenge
 * accepted), unless this page shows it. A game against the AI or on one
 * device (`solo`) he started himself: the socket's first events list it
 * while it is played, and a bar for it covered the very game's menu.
 * @param {StartedGame} g
 */
function announce(g) {
  if (told.has(g.id) || g.id === shownGame() || g.source === 'solo') return;
  told.add(g.id);
  const bar = document.getElementById('game-call');
  if (!bar) return;
  const name = (g.opponent && g.opponent.name) || t('user.someone');
  /** @type {Record<string, string>} */
  const keys = { arena: 'user.arenaGameStarted', swiss: 'user.swissGameStarted' };
  const key = keys[g.source || ''] || 'user.gameStarted';
  bar.textContent = '';
  bar.append(
    h('span', null, t(key, { name })),
    h('a', { class: 'button primary small', id: 'game-call-go', href: g.url }, t('user.play')),
    h('button', { type: 'button', class: 'ghost small', id: 'game-call-dismiss', onclick: () => { bar.hidden = true; } }, t('user.dismiss')),
  );
  bar.hidden = false;
}

/** Opens the user socket, again with backoff whenever it drops. */
export function startUserSocket() {
  let retry = 500;
  const connect = () => {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/api/user/ws`);
    keepAlive(ws);
    // Open, the socket had a session: from now on it reconnects quickly.
    ws.onopen = () => { retry = 500; };
    ws.onmessage = (e) => {
      /** @type {{type: string, game?: StartedGame}} */
      let m;
      try { m = JSON.parse(e.data); } catch (_) { return; }
      if (m.type === 'gameStart' && m.game) {
        announce(m.game);
      }
    };
    ws.onclose = () => {
      window.setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30_000);
    };
  };
  // The socket needs the browser's session. It never makes one itself (a
  // page's own first request does): until one exists, its upgrade is
  // refused and it tries again, ever more slowly.
  connect();
}
