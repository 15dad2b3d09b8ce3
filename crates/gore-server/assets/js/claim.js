// @ts-check
// The pages of the two links that give a seat: the friend's invitation
// (`/join/{id}/{code}`, claimed once) and a player's link to another device
// (`/continue/{id}/{code}`, until revoked). Opening either changes nothing:
// the server gives the seat only when the person presses the button, so a
// link-preview bot that fetches the link cannot take it.

import { ApiError, continueGame, getGame, joinGame, rememberGame } from './api.js';
import { copyButton, h, linkField } from './dom.js';
import { errorText } from './errors.js';
import { gameKind, rulesText, t } from './i18n.js';
import { paceLabel } from './clock.js';

/**
 * @param {HTMLElement} main
 * @param {'join'|'continue'} kind
 * @param {string} id
 * @param {string} code
 */
export function claimPage(main, kind, id, code) {
  /** What the page shows: loading, offer, own, seated, claimed, not-found, error. */
  let view = 'loading';
  /** The game, when it could be read. @type {import('./wire.js').GameState|null} */
  let state = null;
  /** @type {string} */
  let error = '';
  let busy = false;

  /** A player's name on this page. @param {'A'|'B'} p */
  const seatName = (p) => t('player.player', { player: p });

  /** The seat the invitation gives: the human seat nobody has joined. */
  function friendSeat() {
    if (!state || !state.seats) return null;
    for (const p of /** @type {('A'|'B')[]} */ (['A', 'B'])) {
      const s = state.seats[p];
      if (s && s.kind === 'human' && s.joined === false) return p;
    }
    return null;
  }

  function render() {
    main.textContent = '';
    const title = kind === 'join' ? t('join.title') : t('continue.title');
    document.title = `${title} · Goré`;
    const card = h('section', { class: 'card claim-page', id: 'claim-page', 'data-claim': kind, 'data-view': view });
    main.append(card);
    if (view === 'loading') {
      card.append(h('p', { class: 'loading' }, t('common.loading')));
      return;
    }
    const home = h('p', null, h('a', { href: '/' }, t('notFound.home')));
    const gameLink = h('p', null, h('a', { href: `/g/${encodeURIComponent(id)}`, class: 'button primary', id: 'open-game' }, t('join.openGame')));
    if (view === 'not-found') {
      card.append(h('h1', null, t('game.notFound')), h('p', null, kind === 'join' ? t('join.notFoundText') : t('continue.notFoundText')), home);
      return;
    }
    if (view === 'claimed') {
      card.append(
        h('h1', { id: 'claimed-title' }, kind === 'join' ? t('join.claimedTitle') : t('continue.claimedTitle')),
        h('p', { id: 'claimed-text' }, kind === 'join' ? t('join.claimedText') : t('continue.claimedText')),
        home);
      return;
    }
    if (view === 'own') {
      const url = location.href;
      const input = linkField('invite-link', url, 'own-title');
      card.append(
        h('h1', { id: 'own-title' }, t('join.ownTitle')),
        h('p', null, t('join.ownText')),
        h('div', { class: 'invite-row' }, input, copyButton('copy-invite', url, input)),
        gameLink);
      return;
    }
    if (view === 'seated') {
      card.append(h('h1', null, t('join.seatedTitle')), h('p', null, t('join.seatedText', { player: String(/** @type {import('./wire.js').GameState} */ (state).you) })), gameLink);
      return;
    }
    if (view === 'error') {
      card.append(h('h1', null, title), h('p', { class: 'warning', role: 'alert' }, error), home);
      return;
    }
    // The offer: what the game is, and the button.
    const facts = h('ul', { class: 'claim-facts' });
    const rules = state && typeof state.rules === 'string' ? state.rules : 'standard';
    facts.append(h('li', null, t('join.rules', { rules: rulesText(rules) })));
    if (kind === 'join') {
      const mine = friendSeat();
      if (mine) {
        const host = mine === 'A' ? 'B' : 'A';
        const seat = /** @type {import('./wire.js').GameState} */ (state).seats[host];
        // Who invites, by the name he plays under.
        if (seat.kind === 'human' && seat.name) facts.append(h('li', { id: 'join-host' }, t('join.host', { name: seat.name })));
        facts.append(h('li', { id: 'join-colours' }, t('join.colours', { host: seatName(host), you: seatName(mine) })));
      }
      if (state) {
        const clock = state.clock;
        facts.append(h('li', { id: 'join-clock' }, t('join.clock', { clock: clock ? paceLabel(clock.control) : t('join.noClock') })));
      }
    } else if (state) {
      facts.append(h('li', null, gameKind(state)), h('li', null, t('continue.progress', { n: state.actions.length })));
    }
    const button = h('button', { type: 'button', class: 'primary big', id: kind === 'join' ? 'join-btn' : 'continue-btn', disabled: busy, onclick: claim },
      busy ? t('join.claiming') : kind === 'join' ? t('join.button') : t('continue.button'));
    card.append(
      h('h1', null, title),
      h('p', { class: 'lead' }, kind === 'join' ? t('join.text') : t('continue.text')),
      facts,
      h('p', { class: 'warning', role: 'alert', id: 'claim-error', hidden: !error }, error),
      h('div', { class: 'button-row' }, button));
  }

  async function claim() {
    if (busy) return;
    busy = true;
    error = '';
    render();
    try {
      const res = kind === 'join' ? await joinGame(id, code) : await continueGame(id, code);
      rememberGame({ id: res.id || id, mode: state ? state.mode : undefined, seat: res.seat });
      location.assign(res.url || `/g/${encodeURIComponent(id)}`);
      return;
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      if (err.code === 'claimed') view = 'claimed';
      // The server refuses the creator's claim of his own invitation
      // (403): he keeps his seat, and the page says to send the link.
      else if (err.code === 'forbidden' && kind === 'join') view = 'own';
      else if (err.code === 'not_found') view = 'not-found';
      else error = errorText(err) || String(e);
    }
    busy = false;
    render();
    const b = document.getElementById(kind === 'join' ? 'join-btn' : 'continue-btn');
    if (b) b.focus();
  }

  (async () => {
    try {
      state = await getGame(id);
      const you = state.you;
      if (you === 'A' || you === 'B' || you === 'both') {
        // This browser already holds a seat: the host opening his own
        // invitation must not take the friend's seat too.
        view = kind === 'join' && state.status === 'waiting' ? 'own' : 'seated';
      } else if (kind === 'join' && !friendSeat()) {
        view = 'claimed';
      } else {
        view = 'offer';
      }
    } catch (e) {
      const err = /** @type {ApiError} */ (e);
      if (err.code === 'not_found') view = 'not-found';
      else {
        // The button may still work (the page is only a summary).
        view = 'offer';
        state = null;
      }
    }
    render();
  })();

  return { render };
}
