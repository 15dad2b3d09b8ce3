// @ts-check
// A Swiss event's page (`/tournament/{id}` when its kind is `swiss`),
// below the terms and phase that tournaments.js draws for either kind:
// joining and withdrawing, the current round's boards with their games,
// the standings with their tie-breaks (Buchholz, Sonneborn-Berger) after
// the last complete round, and the past rounds. The server pairs and
// scores; this only shows GET /api/tournaments/{id}. Names are text.

import { h } from './dom.js';
import { lang, t } from './i18n.js';

/**
 * @typedef {{board: number, game: string, url: string, a: [string, string], b: [string, string],
 *   result: 'a_wins'|'b_wins'|'draw'|null}} SwissBoard
 * @typedef {{round: number, boards: SwissBoard[], bye: [string, string]|null, complete: boolean}} SwissRound
 * @typedef {{rank: number, player: string, name: string, rating: number, points: number, buchholz: number,
 *   sonneborn_berger: number, won: number, drawn: number, lost: number, withdrawn: boolean,
 *   game: string|null}} SwissLine
 * @typedef {{tournament: import('./tournaments.js').Summary, rounds: SwissRound[], standings: SwissLine[],
 *   standings_after: number}} SwissDetail
 * @typedef {{name: string, id?: string, account?: boolean}} Me
 */

/** A score in the page's language (½ as ",5" or ".5"). @param {number} x */
function num(x) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: 2 }).format(x);
}

/** A player's name, linking to his page. @param {[string, string]} who */
function player(who) {
  return h('a', { href: `/@/${encodeURIComponent(who[1])}` }, who[1]);
}

/** A board's result, or a link to its game while it is played. @param {SwissBoard} b */
function result(b) {
  if (b.result === 'a_wins') return '1–0';
  if (b.result === 'b_wins') return '0–1';
  if (b.result === 'draw') return '½–½';
  return h('a', { href: `/g/${encodeURIComponent(b.game)}` }, t('tour.swiss.playing'));
}

/**
 * A round's boards as a table.
 * @param {SwissRound} r @param {string} caption @param {(id: string) => boolean} mine
 * @param {boolean} [quiet] the caption for screen readers only (a summary shows it)
 */
function roundTable(r, caption, mine, quiet) {
  const rows = r.boards.map((b) => h('tr', { class: mine(b.a[0]) || mine(b.b[0]) ? 'me' : null },
    h('td', null, String(b.board)),
    h('td', null, player(b.a)),
    h('td', { class: 'swiss-result' }, result(b)),
    h('td', null, player(b.b))));
  const table = h('table', { class: 'tour-standings swiss-boards', id: `swiss-round-${r.round}` },
    h('caption', quiet ? { class: 'sr-only' } : null, caption),
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, h('span', { 'aria-hidden': 'true' }, '#'), h('span', { class: 'sr-only' }, t('tour.swiss.board'))),
      h('th', { scope: 'col' }, 'A'),
      h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, t('tour.col.score'))),
      h('th', { scope: 'col' }, 'B'))),
    h('tbody', null, ...rows));
  const bye = r.bye ? h('p', { class: 'swiss-bye', id: `swiss-bye-${r.round}` }, t('tour.swiss.bye', { name: r.bye[1] })) : null;
  return [table, bye];
}

/**
 * What a Swiss event's page shows below its terms and phase.
 * @param {SwissDetail} d
 * @param {Me|null} me
 * @param {(what: 'join'|'withdraw') => void} act
 * @param {string} actionError
 * @returns {HTMLElement[]}
 */
export function swissParts(d, me, act, actionError) {
  const s = d.tournament;
  const mine = (/** @type {string} */ id) => !!me && (id === me.id || d.standings.some((l) => l.player === id && l.name === me.name));
  const myLine = d.standings.find((l) => mine(l.player));
  const current = d.rounds.length && !d.rounds[d.rounds.length - 1].complete ? d.rounds[d.rounds.length - 1] : null;
  /** @type {HTMLElement[]} */
  const out = [];
  if (myLine && myLine.game) {
    out.push(h('p', { class: 'tour-paired', id: 'tour-paired' },
      h('a', { class: 'button', href: `/g/${encodeURIComponent(myLine.game)}`, id: 'tour-my-game' }, t('tour.paired'))));
  }
  const acting = h('p', { class: 'tour-actions', id: 'tour-actions' });
  if (me && !me.account) acting.append(t('tour.visitorJoin'));
  else if (me && s.phase !== 'finished') {
    if (!myLine) acting.append(h('button', { type: 'button', id: 'tour-join', onclick: () => act('join') }, t('tour.join')));
    else if (myLine.withdrawn) acting.append(t('tour.withdrawn'));
    else {
      acting.append(h('button', { type: 'button', id: 'tour-withdraw', class: 'secondary', onclick: () => act('withdraw') }, t('tour.withdraw')));
      const inRound = current && (current.boards.some((b) => mine(b.a[0]) || mine(b.b[0])) || (current.bye && mine(current.bye[0])));
      if (current && !inRound) acting.append(' ', h('span', { class: 'muted', id: 'swiss-late' }, t('tour.swiss.joinedLate')));
    }
  }
  out.push(acting);
  if (actionError) out.push(h('p', { class: 'bad', role: 'alert', id: 'tour-error' }, actionError));
  if (current) {
    out.push(h('section', { class: 'card', id: 'swiss-current' }, ...roundTable(current, t('tour.swiss.current', { r: current.round }), mine)));
  } else if (s.phase === 'upcoming') {
    out.push(h('p', { class: 'muted', id: 'swiss-first' }, t('tour.swiss.firstRound')));
  }
  const rows = d.standings.map((l) => h('tr', { class: mine(l.player) ? 'me' : null },
    h('td', null, String(l.rank)),
    h('td', null, player([l.player, l.name]), l.withdrawn ? h('span', { class: 'muted' }, ` (${t('tour.out')})`) : null),
    h('td', null, num(l.points)),
    h('td', null, num(l.buchholz)),
    h('td', null, num(l.sonneborn_berger))));
  const abbr = (/** @type {string} */ short, /** @type {string} */ long) => h('th', { scope: 'col' },
    h('abbr', { title: long, 'aria-hidden': 'true' }, short), h('span', { class: 'sr-only' }, long));
  const caption = d.standings_after ? t('tour.swiss.after', { r: d.standings_after }) : t('tour.swiss.before');
  const table = h('table', { class: 'tour-standings', id: 'tour-standings' },
    h('caption', null, caption),
    h('thead', null, h('tr', null,
      abbr('#', t('tour.col.rank')),
      h('th', { scope: 'col' }, t('tour.col.player')),
      h('th', { scope: 'col' }, t('tour.col.score')),
      abbr('BH', t('tour.swiss.bh')),
      abbr('SB', t('tour.swiss.sb')))),
    h('tbody', null, ...rows));
  out.push(d.standings.length ? h('section', { class: 'card' }, table)
    : h('section', { class: 'card' }, h('h2', null, t('tour.standings')), h('p', { class: 'muted', id: 'tour-empty' }, t('tour.empty'))));
  const past = d.rounds.filter((r) => r.complete).reverse();
  if (past.length) {
    out.push(h('section', { class: 'card', id: 'swiss-past', 'aria-labelledby': 'swiss-past-title' },
      h('h2', { id: 'swiss-past-title' }, t('tour.swiss.past')),
      ...past.map((r) => h('details', { class: 'swiss-past-round', id: `swiss-past-round-${r.round}` },
        h('summary', null, t('tour.swiss.pairings', { r: r.round })),
        ...roundTable(r, t('tour.swiss.pairings', { r: r.round }), mine, true)))));
  }
  return out;
}
