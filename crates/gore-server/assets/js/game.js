// @ts-check
// The game page: the board, the turn, the negotiation, the end, the move
// list and the review of a finished game. The server's state decides
// everything (`legal` says what may be played); the page only shows it,
// animating each new action from the previous position to the next.
// store.js holds the state, gameview.js draws it; this file wires the
// socket, the actions and the animation.

import { ApiError, LiveGame, abortGame, berserkGame, claimWin, answerTakeback, gameCommand, getGame, newDeviceLink, postAction, rematch, rememberGame, requestTakeback, resignGame, revokeDeviceLinks } from './api.js';
import { Animator, animateAction, savedSpeed, saveSpeed } from './anim.js';
import { Board } from './board.js';
import { announce, h, toast } from './dom.js';
import { errorText } from './errors.js';
import { capturedHoles } from './gpn.js';
import { t } from './i18n.js';
import { cue, notifyOn, setNotify, setSound, soundOn, turnAlert } from './sound.js';
import { GameStore, plyOf } from './store.js';
import { isLow } from './clock.js';
import { chatPanel } from './chat.js';
import * as V from './gameview.js';

/**
 * @typedef {import('./wire.js').GameState} GameState
 * @typedef {import('./wire.js').Update} Update
 */

/** @param {HTMLElement} main @param {string} id */
export function gamePage(main, id) {
  const st = new GameStore(id);
  /** @type {Animator|null} */
  let anim = null;
  /** @type {LiveGame|null} */
  let live = null;
  let destroyed = false;
  let pollTimer = 0;
  let pendingTimer = 0;
  /** For tests: the ply of every action drawn on the board, as `window.goreShown`. @type {number[]} */
  const shown = [];
  /** @type {any} */ (window).goreTrace = st.trace;
  /** @type {any} */ (window).goreShown = shown;

  const board = new Board({ interactive: true, onHole, onPoint, onRefused });
  // The chat of a game between people, for its players (made once: it
  // keeps its messages across renders).
  const chat = chatPanel(id, () => (st.you === 'A' || st.you === 'B' ? st.you : null), (text) => !!(live && live.chat(text)), (p) => V.playerName(st, p));
  /** @type {V.Ctx} */
  const ctx = {
    store: st,
    el: {},
    board,
    id,
    act,
    ui,
    skip: () => { if (anim) anim.skip(); },
    retry: () => { if (live) live.connectNow(); },
    rematch: doRematch,
    resign: doResign,
    abort: () => request(() => abortGame(id)),
    berserk: () => request(() => berserkGame(id)),
    claim: () => request(() => claimWin(id)),
    command: (name) => request(() => gameCommand(id, name)),
    clockAt: performance.now(),
    takeback: doTakeback,
    answerTakeback: doAnswerTakeback,
    newDevice,
    revokeDevices,
    sweeping: false,
  };

  // ----- building the page -----

  function render() {
    document.title = `Goré · ${t('game.title')}`;
    main.textContent = '';
    if (st.loadError) {
      main.append(h('section', { class: 'card' }, h('h1', null, t('game.notFound')), h('p', null, st.loadError), h('p', null, h('a', { href: '/' }, t('notFound.home')))));
      return;
    }
    if (!st.s) {
      main.append(h('p', { class: 'loading' }, t('common.loading')));
      return;
    }
    board.svg.setAttribute('aria-label', t('board.label'));
    /** @type {Record<string, HTMLElement>} */
    const el = {
      title: h('h1', { id: 'game-title' }),
      conn: h('div', { id: 'conn', class: 'conn', role: 'status' }),
      players: h('div', { class: 'players', id: 'players' }),
      turn: h('p', { id: 'turn', class: 'turn' }),
      clockNote: h('p', { id: 'clock-note', class: 'clock-note', role: 'status', hidden: true }),
      awayNote: h('div', { id: 'away-note', class: 'notice away-note', role: 'status', hidden: true }),
      invite: h('div', { id: 'invite', class: 'card invite', hidden: true }),
      notice: h('div', { id: 'notice', class: 'notice', hidden: true }),
      unavailable: h('p', { id: 'unavailable', class: 'warning', role: 'alert', hidden: true }),
      incoming: h('section', { id: 'incoming-offer', class: 'offer-box', hidden: true, 'aria-labelledby': 'incoming-title' }),
      boardWrap: h('div', { class: 'board-wrap', id: 'board-wrap' }, board.svg),
      controls: h('div', { id: 'controls', class: 'controls' }),
      tools: h('div', { id: 'tools', class: 'tools' }),
      offerPanel: h('section', { id: 'offer-panel', class: 'offer-box outgoing', hidden: true, 'aria-labelledby': 'offer-panel-title' }),
      result: h('section', { id: 'result', class: 'result card', hidden: true, 'aria-labelledby': 'result-title' }),
      resultMore: h('div', { id: 'result-more', class: 'result-more', hidden: true }),
      review: h('div', { id: 'review', class: 'review', hidden: true, role: 'group' }),
      moves: h('ol', { id: 'moves', class: 'moves' }),
      links: h('div', { class: 'game-links' }),
      devices: h('details', { id: 'devices', class: 'card settings devices', hidden: true }),
      devicesBody: h('div', { id: 'devices-body' }),
    };
    ctx.el = el;
    el.devices.append(h('summary', { id: 'devices-summary' }, t('device.title')), el.devicesBody);
    const speed = h('select', { id: 'anim-speed', onchange: (/** @type {Event} */ e) => saveSpeed(/** @type {HTMLSelectElement} */ (e.target).value) });
    for (const s of ['slow', 'normal', 'fast', 'off']) speed.append(h('option', { value: s, selected: savedSpeed() === s }, t(`settings.speed.${s}`)));
    const sound = h('input', { type: 'checkbox', id: 'sound-on', checked: soundOn(), onchange: (/** @type {Event} */ e) => setSound(/** @type {HTMLInputElement} */ (e.target).checked) });
    const notify = h('input', { type: 'checkbox', id: 'notify-on', checked: notifyOn(), onchange: async (/** @type {Event} */ e) => {
      const box = /** @type {HTMLInputElement} */ (e.target);
      box.checked = await setNotify(box.checked);
    } });
    // The board and what acts on it come first; the side column (in a
    // wide or landscape layout) has the rest.
    el.page = h('div', { class: 'game-page', id: 'game-page' },
      h('div', { class: 'game-top' }, el.title, el.conn),
      el.players,
      el.clockNote,
      el.awayNote,
      el.turn,
      el.invite,
      el.unavailable,
      el.boardWrap,
      h('div', { class: 'game-panel', id: 'game-panel' },
        el.result,
        el.review,
        el.resultMore,
        el.incoming,
        el.controls,
        el.offerPanel,
        el.notice,
        el.tools),
      st.s.mode === 'friend' && (st.you === 'A' || st.you === 'B') ? chat.panel : null,
      h('section', { class: 'card moves-card', 'aria-labelledby': 'moves-title' },
        h('h2', { id: 'moves-title' }, t('game.moves')),
        el.moves),
      h('details', { class: 'card settings' },
        h('summary', null, t('settings.title')),
        h('label', { class: 'field', for: 'anim-speed' }, h('span', null, t('settings.speed')), speed),
        h('label', { class: 'field choice', for: 'sound-on' }, sound, h('span', null, t('settings.sound'))),
        'Notification' in window ? h('label', { class: 'field choice', for: 'notify-on' }, notify, h('span', null, t('settings.notify'))) : null),
      el.devices,
      el.links,
    );
    main.append(el.page);
    V.viewDevices(ctx);
    update();
  }

  /** Refreshes every part of the page from the store. */
  function update() {
    if (!st.s || !ctx.el.title) return;
    const el = ctx.el;
    const focused = document.activeElement;
    V.viewTitle(ctx);
    V.viewConn(ctx);
    const k = st.shownPly();
    V.viewPlayers(ctx, st.animating ? st.posAfter(st.shownCount) : st.over ? st.reviewStep().step.pos : st.pos, k);
    const yours = V.viewTurn(ctx);
    V.viewInvite(ctx);
    V.viewNotice(ctx);
    el.unavailable.hidden = !st.unavailable;
    el.unavailable.textContent = st.unavailable ? t('error.unavailable') : '';
    // Another device is for a seat of a game going on: not after its end,
    // nor on one device (its link would open both seats).
    el.devices.hidden = !(st.you === 'A' || st.you === 'B') || st.over;
    V.viewIncoming(ctx);
    V.viewControls(ctx);
    V.viewTools(ctx);
    V.viewOfferPanel(ctx);
    V.viewResult(ctx);
    V.viewReview(ctx, goReview);
    V.viewMoves(ctx, goReview);
    V.viewLinks(ctx);
    if (!st.animating) V.drawBoard(ctx);
    // For tests and styles: what the page shows.
    el.page.dataset.ply = String(st.shownCount);
    el.page.dataset.status = st.s.status;
    el.page.dataset.busy = st.animating || st.sending ? '1' : '0';
    el.page.dataset.you = String(st.you);
    el.page.dataset.thinking = st.s.thinking ? '1' : '0';
    el.page.dataset.mode = st.mode;
    el.page.dataset.bottom = st.bottom();
    el.boardWrap.classList.toggle('thinking', !!st.s.thinking && !st.animating && !st.over);
    turnAlert(yours, `Goré · ${t('game.title')}`, t('alert.yourTurn'));
    // Focus that was on a removed control goes back to the board or the turn line.
    if (focused && focused !== document.body && !focused.isConnected) {
      const first = main.querySelector('.hole[tabindex="0"][aria-disabled="false"]');
      const target = /** @type {HTMLElement|SVGElement|null} */ (first || el.turn);
      if (target) {
        if (target === el.turn) el.turn.setAttribute('tabindex', '-1');
        target.focus();
      }
    }
  }

  /**
   * Changes the interface state, redraws, and moves the focus where the
   * player works next (`offer-first`: the first hole that may be offered).
   * @param {(s: GameStore) => void} change @param {string} [focus]
   */
  function ui(change, focus) {
    change(st);
    update();
    if (focus === 'offer-first') {
      const first = st.offerableHoles()[0];
      if (first) board.focusHole(first);
    } else if (focus) focusEl(focus);
  }

  /** @param {number} k */
  function goReview(k) {
    const steps = st.reviewSteps();
    st.review = Math.max(0, Math.min(steps.length - 1, k));
    update();
  }

  // ----- acting -----

  /** @param {string} hole */
  function onHole(hole) {
    if (!st.s || !st.playable().length) return;
    if (st.mode === 'offer') {
      if (!st.offerableHoles().includes(hole)) return;
      if (st.selected.has(hole)) st.selected.delete(hole);
      else st.selected.add(hole);
      update();
      return;
    }
    if (st.legal().includes(hole)) act(hole);
  }

  /**
   * A hole that may not be played now was activated (Enter, Space, a
   * click): say why, on screen and to screen readers.
   * @param {string} hole
   */
  function onRefused(hole) {
    if (!st.s) return;
    const why = V.whyNot(ctx, hole);
    toast(why);
    announce(why);
  }

  /** The hole under the pointer and the focused one: the preview is the pointer's, else the focus's. */
  const pointing = { pointer: /** @type {string|null} */ (null), focus: /** @type {string|null} */ (null) };
  /** @param {string|null} hole @param {'pointer'|'focus'} via */
  function onPoint(hole, via) {
    pointing[via] = hole;
    const next = pointing.pointer || pointing.focus;
    if (st.preview === next) return;
    st.preview = next;
    if (!st.animating && st.s && st.mode === 'play' && ctx.el.title) V.drawBoard(ctx);
  }

  /**
   * Plays an action: over the socket when it is open (the answer is the
   * update every socket receives, or an error to this one), else by HTTP
   * (the answer is the whole state).
   * @param {string} action
   */
  async function act(action) {
    if (st.sending || !st.s) return;
    if (!st.legal().includes(action)) {
      toast(t('error.notLegal', { action }));
      return;
    }
    if (st.offline) {
      toast(t('status.offline'));
      return;
    }
    const ply = plyOf(st.s);
    st.sending = true;
    st.mode = 'play';
    update();
    if (live && live.send(action, ply)) {
      st.pendingPly = ply;
      clearTimeout(pendingTimer);
      // Neither the update nor an error (a socket that died quietly): ask.
      pendingTimer = window.setTimeout(async () => {
        if (st.pendingPly !== ply || destroyed) return;
        st.endPending();
        try { onState(await getGame(id), 'get'); } catch (_) { /* the socket or the poll will bring it */ }
        if (!st.animating) update();
      }, 8000);
      return;
    }
    try {
      const s = await postAction(id, action, ply);
      st.sending = false;
      onState(s, 'post');
      // The answer may be older than a state the socket already brought.
      if (!st.animating) update();
    } catch (e) {
      st.sending = false;
      refused(/** @type {ApiError} */ (e));
      try { onState(await getGame(id), 'get'); } catch (_) { /* the socket will bring it */ }
      if (!st.animating) update();
    }
  }

  /** Says why an action was refused. @param {{code?: string, message?: string}} err */
  function refused(err) {
    if (err.code === 'stale') toast(t('error.stale'));
    else if (err.code === 'network') {
      // The server is out of reach: say so in the player's language and
      // keep the holes still until the connection is back.
      st.offline = true;
      toast(t('status.offline'));
    } else if (err.code === 'unavailable') {
      st.unavailable = true;
      toast(t('error.unavailable'));
    } else toast(t('error.action', { message: errorText(err) }));
  }

  /** An error on the socket: the answer to our action, or another refusal. @param {{code: string, message: string}} err */
  function onSocketError(err) {
    const mine = st.pendingPly !== null;
    clearTimeout(pendingTimer);
    st.endPending();
    refused(err);
    // A refused action may mean the page is behind: get the whole state.
    if (mine && (err.code === 'stale' || err.code === 'forbidden' || err.code === 'illegal_action' || err.code === 'game_over')) {
      if (!(live && live.resync(st.s ? plyOf(st.s) : undefined))) getGame(id).then((s) => onState(s, 'get'), () => undefined);
    }
    if (!st.animating) update();
  }

  /**
   * A request of the game's own (resign, takeback): its answer is a whole
   * state, which the socket brings too.
   * @param {() => Promise<GameState>} call
   */
  async function request(call) {
    if (st.sending) return;
    st.sending = true;
    update();
    try {
      const s = await call();
      st.sending = false;
      if (s && s.id) onState(s, 'post');
    } catch (e) {
      st.sending = false;
      refused(/** @type {ApiError} */ (e));
    }
    if (!st.animating) update();
  }

  function doResign() {
    st.confirmResign = false;
    request(() => resignGame(id));
  }

  function doTakeback() { request(() => requestTakeback(id)); }

  /** @param {boolean} accept */
  function doAnswerTakeback(accept) { request(() => answerTakeback(id, accept)); }

  async function newDevice() {
    if (st.deviceBusy) return;
    st.deviceBusy = true;
    V.viewDevices(ctx);
    try {
      const res = await newDeviceLink(id);
      st.deviceUrl = new URL(res.url, location.origin).href;
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
    st.deviceBusy = false;
    V.viewDevices(ctx);
    focusEl(st.deviceUrl ? 'device-link' : 'device-btn');
  }

  async function revokeDevices() {
    if (st.deviceBusy) return;
    st.deviceBusy = true;
    V.viewDevices(ctx);
    try {
      await revokeDeviceLinks(id);
      st.deviceUrl = 'revoked';
      toast(t('device.revoked'));
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
    st.deviceBusy = false;
    V.viewDevices(ctx);
    focusEl('device-btn');
  }

  async function doRematch() {
    try {
      const res = await rematch(id);
      // The button is drawn only once there is a state.
      rememberGame({ id: res.id, mode: /** @type {GameState} */ (st.s).mode, seat: res.seat, invite: res.invite });
      location.assign(res.url || `/g/${res.id}`);
    } catch (e) {
      toast(t('error.action', { message: errorText(/** @type {ApiError} */ (e)) }));
    }
  }

  /**
   * On one's turn, the focus goes to a playable hole; with none (an offer
   * to answer, a pass), to the button to press: the announcement of the
   * turn that follows says why.
   */
  function focusNext() {
    const holes = board.enabled();
    if (holes.length) {
      const rover = board.rover && holes.includes(board.rover) ? board.rover : holes[0];
      board.focusHole(rover);
      return;
    }
    const button = document.getElementById('accept-btn') || document.getElementById('pass-btn') || document.getElementById('offer-btn');
    if (button) button.focus();
  }

  /** @param {string} idName */
  function focusEl(idName) {
    const x = document.getElementById(idName);
    if (x) x.focus();
  }

  // ----- the state and its animation -----

  /** @param {GameState} s @param {string} kind */
  function onState(s, kind) {
    if (destroyed) return;
    const first = !st.s;
    const before = st.s ? st.s : null;
    if (!st.applyState(s, kind)) return;
    ctx.clockAt = performance.now();
    st.offline = false;
    taken(first, before);
  }

  /** @param {Update} u */
  function onUpdate(u) {
    if (destroyed) return;
    const before = st.s;
    const r = st.applyUpdate(u);
    if (r === 'gap') {
      if (!st.resyncing && live && live.resync(st.s ? plyOf(st.s) : undefined)) st.resyncing = true;
      return;
    }
    if (r === 'applied') {
      ctx.clockAt = performance.now();
      taken(false, before);
    }
  }

  /** A new state was taken: show it. @param {boolean} first @param {GameState|null} before */
  function taken(first, before) {
    const s = /** @type {GameState} */ (st.s);
    if (s.you) rememberGame({ id, mode: s.mode, seat: s.you });
    if (first) {
      st.shownCount = s.actions.length;
      render();
      return;
    }
    // Sounds for what arrived: an offer to answer, a takeback asked; and
    // one's own takeback request refused (the same ply, no request left).
    if (before && s.takeback && s.takeback !== before.takeback && s.takeback !== st.you) cue('offer');
    if (before && before.takeback && before.takeback === st.you && !s.takeback && plyOf(s) === plyOf(before)) toast(t('takeback.refused'));
    if (!st.animating) catchUp();
    else update();
  }

  async function catchUp() {
    if (st.animating) return;
    let lastSaid = '';
    st.animating = true;
    anim = new Animator(savedSpeed());
    update();
    try {
      while (!destroyed && st.shownCount < st.entries.length) {
        const k = st.shownCount + 1;
        const behind = st.entries.length - st.shownCount;
        const e = st.entries[k - 1];
        const prev = st.posAfter(k - 1);
        const isLast = k === st.entries.length;
        const next = isLast && st.over ? st.pos : st.posAfter(k);
        // Far behind (a reconnection, a hidden tab): show the older actions at once.
        const a = behind > 2 || document.hidden ? new Animator('off') : anim;
        if (anim.skipped) a.skip();
        const quiet = a.instant;
        if (!quiet) cue(e.action.startsWith('offer:') ? 'offer' : 'sow');
        try {
          await animateAction(board, prev, next, e.action, capturedHoles(e), {
            path: e.path,
            onSweep: () => { ctx.sweeping = true; V.viewTurn(ctx); if (!quiet) cue('capture'); },
          }, a);
        } catch (err) {
          console.warn('animation', err);
        }
        ctx.sweeping = false;
        board.clearFx();
        if (!quiet && capturedHoles(e).length) cue('capture');
        st.shownCount = k;
        shown.push(k);
        lastSaid = V.describe(e, prev, st.posAfter(k));
        announce(lastSaid);
        if (!anim.skipped) V.viewMoves(ctx, goReview);
      }
    } finally {
      st.animating = false;
      ctx.sweeping = false;
      anim = null;
      board.clearFx();
    }
    if (destroyed) return;
    if (st.over) {
      st.review = null;
      const r = /** @type {GameState} */ (st.s).result;
      if (r) announce(V.resultText(r));
    }
    // Where the focus was on the board (the hole just sown, now empty, or
    // nothing), it goes where the player works next.
    const active = document.activeElement;
    const onBoard = !active || active === document.body || board.svg.contains(active);
    update();
    // Then whose turn it is, when it is yours.
    if (!st.over && st.legal().length && lastSaid) {
      if (onBoard) focusNext();
      announce(`${lastSaid} ${ctx.el.turn.textContent || ''}`);
      cue(st.legal().includes('accept') ? 'offer' : 'turn');
    }
    if (st.shownCount < st.entries.length) catchUp();
  }

  // ----- keyboard: stepping through a finished game -----

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    // Escape leaves offer mode, as its Cancel button does.
    if (e.key === 'Escape' && st.s && !st.over && st.mode === 'offer') {
      e.preventDefault();
      ui((s) => { s.mode = 'play'; s.selected = new Set(); }, 'offer-btn');
      return;
    }
    if (!st.s || !st.over || st.animating) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const { steps, i } = st.reviewStep();
    let to = null;
    if (e.key === 'ArrowLeft') to = i - 1;
    else if (e.key === 'ArrowRight') to = i + 1;
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = steps.length - 1;
    if (to === null) return;
    e.preventDefault();
    goReview(to);
    const label = document.getElementById('review-label');
    if (label) announce(label.textContent || '');
  }
  document.addEventListener('keydown', onKey);

  // ----- clocks: counted down between states; a cue when yours runs low -----

  let lowCued = false;
  const clockTimer = window.setInterval(() => {
    if (!st.s || !ctx.el.title) return;
    V.viewAway(ctx);
    if (!st.s.clock) return;
    const mine = V.viewClocks(ctx);
    const low = mine !== null && isLow(mine, st.s.clock.control);
    if (low && !lowCued) {
      cue('lowtime');
      toast(t('clock.lowTime'));
    }
    lowCued = low;
  }, 100);

  // ----- start -----

  function startLive() {
    live = new LiveGame(id, {
      onState: (s) => onState(s, 'socket'),
      onUpdate,
      onError: onSocketError,
      onChat: (lines, history) => chat.take(lines, history),
      onStatus: (s, ms) => {
        const was = st.conn;
        st.conn = s;
        st.retryMs = ms || 0;
        if (s === 'open' && st.offline) {
          st.offline = false;
          if (ctx.el.title && !st.animating) update();
        } else if (ctx.el.conn) V.viewConn(ctx);
        if (was === 'open' && s !== 'open' && ctx.el.title && !st.animating) update();
        schedulePoll();
      },
    });
  }

  // While the socket is down, poll now and then so that the game goes on.
  function schedulePoll() {
    clearTimeout(pollTimer);
    if (destroyed || st.conn === 'open') return;
    pollTimer = window.setTimeout(async () => {
      if (destroyed || st.conn === 'open') return;
      try {
        onState(await getGame(id), 'poll');
        if (st.offline) {
          st.offline = false;
          if (!st.animating) update();
        }
      } catch (e) {
        if (/** @type {ApiError} */ (e).code === 'network' && !st.offline) {
          st.offline = true;
          if (!st.animating) update();
        }
      }
      schedulePoll();
    }, 3000);
  }

  (async () => {
    try {
      const s = await getGame(id);
      onState(s, 'get');
      startLive();
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      st.loadError = err.code === 'not_found' ? t('game.notFoundText') : (errorText(err) || String(e));
      render();
    }
  })();

  return {
    render: () => {
      if (anim) anim.skip();
      render();
    },
    destroy: () => {
      destroyed = true;
      clearTimeout(pollTimer);
      clearTimeout(pendingTimer);
      clearInterval(clockTimer);
      document.removeEventListener('keydown', onKey);
      turnAlert(false, '', '');
      if (live) live.close();
      if (anim) anim.skip();
    },
  };
}
