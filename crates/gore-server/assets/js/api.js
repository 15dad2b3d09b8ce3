// @ts-check
// The server's HTTP and WebSocket API (docs/API.md). The seat token is the
// HttpOnly cookie the server sets, so requests carry it by themselves.
// What the game's answers and socket messages hold: wire.js.

/**
 * @typedef {import('./wire.js').GameState} GameState
 * @typedef {import('./wire.js').Update} Update
 * @typedef {import('./wire.js').Created} Created
 * @typedef {import('./wire.js').ChatLine} ChatLine
 * @typedef {import('./wire.js').WireError} WireError
 * @typedef {import('./wire.js').ServerMsg} ServerMsg
 */

import { carried } from './dom.js';

export class ApiError extends Error {
  /**
   * @param {number} status @param {string} code @param {string} message
   * @param {string} [reason] why, finer than the code (docs/API.md, "Reasons")
   * @param {Record<string, string|number>} [params] the reason's parameters
   */
  constructor(status, code, message, reason, params) {
    super(message);
    this.status = status;
    this.code = code;
    this.reason = reason;
    this.params = params;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>} the answer's JSON (the callers say what it is)
 */
export async function call(method, path, body) {
  if (method === 'GET' && body === undefined) {
    // The data a page reads first may be in the page.
    const inPage = carried(path);
    if (inPage !== undefined) return inPage;
  }
  /** @type {RequestInit} */
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', String(e && /** @type {Error} */ (e).message || e));
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: `http_${res.status}`, message: text || res.statusText };
    throw new ApiError(res.status, err.code, err.message, err.reason, err.params);
  }
  return data;
}

/**
 * @param {{mode: string, rules?: string, level?: number, perfect?: boolean, colour?: string, honourable?: boolean}} req
 * @returns {Promise<Created>}
 */
export const createGame = (req) => call('POST', '/api/games', req);
/** The rule sets the server's perfect player plays. @returns {Promise<import('./wire.js').Solver>} */
export const solverInfo = () => call('GET', '/api/solver');
/** @param {string} id @returns {Promise<GameState>} */
export const getGame = (id) => call('GET', `/api/games/${encodeURIComponent(id)}`);
/** @param {string} id @param {string} action @param {number} [ply] @returns {Promise<GameState>} */
export const postAction = (id, action, ply) => call('POST', `/api/games/${encodeURIComponent(id)}/actions`, ply === undefined ? { action } : { action, ply });
/** @param {string} id @returns {Promise<Created>} */
export const rematch = (id) => call('POST', `/api/games/${encodeURIComponent(id)}/rematch`, {});
/**
 * A command of the game by its name (`resign`, `abort`, `berserk`, `claim`,
 * `takeback`, `give-time`…: the server's one table of commands), with its
 * fields. @param {string} id @param {string} name @param {Record<string, unknown>} [fields]
 * @returns {Promise<GameState>}
 */
export const gameCommand = (id, name, fields = {}) => call('POST', `/api/games/${encodeURIComponent(id)}/${name}`, fields);
/** Resigns the caller's seat (the opponent wins). @param {string} id @returns {Promise<GameState>} */
export const resignGame = (id) => gameCommand(id, 'resign');
/** @type {Promise<{name: string, id?: string, account?: boolean}>|null} */
let me = null;
/**
 * The browser's display name (generated on the first visit). Asked once
 * per page: two first requests at once would make two sessions.
 * @returns {Promise<{name: string, id?: string, account?: boolean}>}
 */
export const getMe = () => {
  if (!me) me = call('GET', '/api/me').catch((e) => { me = null; throw e; });
  return me;
};
/** Chooses a display name (the server checks it). @param {string} name @returns {Promise<{name: string}>} */
export const setName = (name) => call('POST', '/api/me/name', { name }).then((r) => { me = Promise.resolve(r); return r; });
/** Claims the win: the opponent left. @param {string} id @returns {Promise<GameState>} */
export const claimWin = (id) => gameCommand(id, 'claim');
/** Reports a chat message. @param {string} id @param {number} n @returns {Promise<null>} */
export const reportChat = (id, n) => call('POST', `/api/games/${encodeURIComponent(id)}/chat/${n}/report`, {});
/** Aborts the game (before each player has moved): it counts for nobody. @param {string} id @returns {Promise<GameState>} */
export const abortGame = (id) => gameCommand(id, 'abort');
/** Goes berserk in an arena game (before one's first action): half the clock, no increment. @param {string} id @returns {Promise<GameState>} */
export const berserkGame = (id) => gameCommand(id, 'berserk');
/** Takes back one's last move (ai and local games), or asks the opponent (friend games). @param {string} id @returns {Promise<GameState>} */
export const requestTakeback = (id) => gameCommand(id, 'takeback');
/** Grants or refuses the opponent's takeback request. @param {string} id @param {boolean} accept @returns {Promise<GameState>} */
export const answerTakeback = (id, accept) => call('POST', `/api/games/${encodeURIComponent(id)}/takeback/answer`, { accept });
/** @param {string} id */
export const recordUrl = (id) => `/api/games/${encodeURIComponent(id)}/record`;
/** Claims the friend's seat of an invitation (`/join/{id}/{code}`). @param {string} id @param {string} code @returns {Promise<Created>} */
export const joinGame = (id, code) => call('POST', `/api/games/${encodeURIComponent(id)}/join`, { code });
/** Opens one's seat on this device (`/continue/{id}/{code}`). @param {string} id @param {string} code @returns {Promise<Created>} */
export const continueGame = (id, code) => call('POST', `/api/games/${encodeURIComponent(id)}/continue`, { code });
/** A link that opens the caller's seat on another device. @param {string} id @returns {Promise<import('./wire.js').DeviceLink>} */
export const newDeviceLink = (id) => call('POST', `/api/games/${encodeURIComponent(id)}/devices`, {});
/** Revokes the caller's device links. @param {string} id @returns {Promise<null>} */
export const revokeDeviceLinks = (id) => call('DELETE', `/api/games/${encodeURIComponent(id)}/devices`);

/** How often an open socket says `ping` (ms): the server closes a socket
 * whose client sends nothing for 5 minutes (answering its pings is not
 * enough), so that silent sockets do not hold its descriptors. */
const KEEP_ALIVE_MS = 120_000;

/**
 * Sends a `ping` message on `ws` every two minutes while it is open.
 * @param {WebSocket} ws
 */
export function keepAlive(ws) {
  const timer = window.setInterval(() => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'ping' }));
  }, KEEP_ALIVE_MS);
  ws.addEventListener('close', () => window.clearInterval(timer));
}

/**
 * A live connection to a game, reconnecting with backoff: a whole `state`
 * first (and after a `resync`), then `update`s with only what changed.
 * onStatus gets 'connecting' | 'open' | 'closed' (with the delay before the
 * next try, in ms).
 */
export class LiveGame {
  /**
   * @param {string} id
   * @param {{onState: (s: GameState) => void, onUpdate: (u: Update) => void,
   *   onError?: (e: WireError) => void,
   *   onChat?: (lines: ChatLine[], history: boolean) => void,
   *   onStatus?: (status: string, retryMs?: number) => void}} handlers
   */
  constructor(id, handlers) {
    this.id = id;
    this.h = handlers;
    this.attempt = 0;
    this.stopped = false;
    /** @type {WebSocket|null} */
    this.ws = null;
    /** @type {number|undefined} */
    this.timer = undefined;
    this.onVisible = () => {
      if (document.visibilityState === 'visible' && !this.ws && !this.stopped) this.connectNow();
    };
    document.addEventListener('visibilitychange', this.onVisible);
    window.addEventListener('online', this.onVisible);
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${proto}//${location.host}/api/games/${encodeURIComponent(this.id)}/ws`;
    this.h.onStatus && this.h.onStatus('connecting');
    let ws;
    try {
      ws = new WebSocket(url);
    } catch (_) {
      this.retry();
      return;
    }
    this.ws = ws;
    keepAlive(ws);
    ws.onopen = () => {
      this.attempt = 0;
      this.h.onStatus && this.h.onStatus('open');
    };
    ws.onmessage = (ev) => {
      /** @type {ServerMsg|null} */
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg && msg.type === 'state' && msg.state) this.h.onState(msg.state);
      else if (msg && msg.type === 'update' && msg.update) this.h.onUpdate(msg.update);
      else if (msg && msg.type === 'error' && this.h.onError) this.h.onError(msg.error || { code: 'error', message: '' });
      else if (msg && msg.type === 'chat' && this.h.onChat) this.h.onChat([msg.line], false);
      else if (msg && msg.type === 'chat_history' && this.h.onChat) this.h.onChat(msg.lines || [], true);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      this.retry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  retry() {
    if (this.stopped) return;
    const base = Math.min(15000, 500 * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.attempt += 1;
    this.h.onStatus && this.h.onStatus('closed', delay);
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.connect(), delay);
  }

  /** Tries again at once (after a "retry now" click, or when the page comes back). */
  connectNow() {
    clearTimeout(this.timer);
    if (this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  /** @param {string} action @param {number} ply */
  send(action, ply) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: 'action', action, ply }));
      return true;
    }
    return false;
  }

  /** Sends a chat message; false when the socket is not open. @param {string} text */
  chat(text) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify({ type: 'chat', text }));
      return true;
    }
    return false;
  }

  /**
   * Asks for what the page lacks after a gap in the updates: the actions
   * after its `ply` (the server answers the whole state when it has none).
   * @param {number} [ply]
   */
  resync(ply) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(typeof ply === 'number' ? { type: 'resync', ply } : { type: 'resync' }));
      return true;
    }
    return false;
  }

  get open() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    document.removeEventListener('visibilitychange', this.onVisible);
    window.removeEventListener('online', this.onVisible);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close();
    }
  }
}

// This browser's games, kept in localStorage (ids and what we know of them).
const GAMES_KEY = 'gore.games';

/** @returns {Array<{id: string, mode?: string, seat?: string, invite?: string, created?: number}>} */
export function myGames() {
  try {
    const v = JSON.parse(localStorage.getItem(GAMES_KEY) || '[]');
    return Array.isArray(v) ? v.filter((g) => g && typeof g.id === 'string') : [];
  } catch (_) {
    return [];
  }
}

/** @param {{id: string, mode?: string, seat?: string, invite?: string, created?: number}} g */
export function rememberGame(g) {
  const list = myGames();
  const old = list.find((x) => x.id === g.id);
  if (old) Object.assign(old, g);
  else list.unshift({ created: Date.now(), ...g });
  try { localStorage.setItem(GAMES_KEY, JSON.stringify(list.slice(0, 50))); } catch (_) { /* ignore */ }
}

/**
 * Forgets every game of this browser: after logging out, whose seats were
 * all the account's (the browser's anonymous ones became the account's
 * at log-in, and the session that held them has ended).
 */
export function forgetAllGames() {
  try { localStorage.removeItem(GAMES_KEY); } catch (_) { /* ignore */ }
}

/** @param {string} id */
export function forgetGame(id) {
  try { localStorage.setItem(GAMES_KEY, JSON.stringify(myGames().filter((g) => g.id !== id))); } catch (_) { /* ignore */ }
}
