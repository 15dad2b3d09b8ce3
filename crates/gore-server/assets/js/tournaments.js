// @ts-check
// The tournaments' pages (a Swiss event's body is swiss.js's): the list (`/tournaments`: upcoming, running and
// finished, and a form to create one) and a tournament's page
// (`/tournament/{id}`: its terms, phase and countdown, joining and
// withdrawing, the standings, one's own game and the leader's). The server
// pairs and scores; the page shows what GET /api/tournaments… says, asked
// again every 2 s while the page is visible. Names are shown as text.

import { call, getMe } from './api.js';
import { paceLabel } from './clock.js';
import { h, redrawKeeping } from './dom.js';
import { errorText } from './errors.js';
import { lang, rulesText, t, tn } from './i18n.js';
import { swissParts } from './swiss.js';

/** The lobby's paces an arena may have (days are refused). */
const PACES = ['3+2', '5+3', '10+5', '15+10'];

/**
 * @typedef {{id: string, name: string, kind: string, clock: string, rules: string, rated: boolean,
 *   starts_at: number, ends_at: number, phase: string, players: number, creator: string, url: string,
 *   rounds?: number, round?: number, bots?: boolean}} Summary
 * @typedef {{rank: number, player: string, name: string, score: number, games: number, wins: number,
 *   on_fire: boolean, game: string|null, presence: string, rating: number,
 *   berserk_points: number}} Standing
 * @typedef {{tournament: Summary, standings: Standing[], playing: {game: string, url: string, a: [string, string], b: [string, string]}[],
 *   featured: string|null}} Detail
 * @typedef {{name: string, id?: string, account?: boolean}} Me
 */

/** @param {number} ms */
function when(ms) {
  return new Date(ms).toLocaleString(lang(), { weekday: 'short', hour: '2-digit', minute: '2-digit' });
}

/** "12:05" or "1:02:05": the time left until `at`. @param {number} at */
function left(at) {
  const s = Math.max(0, Math.round((at - Date.now()) / 1000));
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/** The terms in words: pace · rules · rated or casual (· BOTs allowed). @param {Summary} s */
function termsText(s) {
  const swiss = s.kind === 'swiss' ? [t('tour.swiss.kind'), tn('tour.swiss.rounds', s.rounds || 0)] : [];
  return [...swiss, paceLabel(s.clock), rulesText(s.rules), s.rated ? t('tour.rated') : t('tour.casual'), ...(s.bots ? [t('tour.botsAllowed')] : [])].join(' · ');
}

/** How far ahead the form's start is at first: a few minutes, for players to come. */
const START_AHEAD_MS = 5 * 60_000;

/** `at` (Unix ms) as a `datetime-local` input's value, in the viewer's time. @param {number} at */
function localInput(at) {
  const d = new Date(at - new Date(at).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

/**
 * The streak's flame, drawn (an emoji needs a font a phone may lack).
 * @returns {SVGSVGElement}
 */
function flame() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 20');
  svg.setAttribute('class', 'flame');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M8 0C9 4 14 7 14 12.5A6 6 0 0 1 2 12.5C2 9.5 4 8 5 6c.5 2 1.5 3 2.5 3C7.5 6 6.5 3 8 0z');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

/**
 * Berserk's bolt, drawn as the flame is.
 * @returns {SVGSVGElement}
 */
function bolt() {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 14 20');
  svg.setAttribute('class', 'bolt');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M9 0L1 11h5l-2 9 9-12H8l1-8z');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

/** A standing's berserk points: a bolt and their number, or nothing. @param {Standing} l */
function berserkPoints(l) {
  const n = l.berserk_points || 0;
  if (!n) return null;
  return h('span', { class: 'berserk-points', title: tn('tour.berserkPoints', n) },
    bolt(), h('span', { 'aria-hidden': 'true' }, String(n)), h('span', { class: 'sr-only' }, tn('tour.berserkPoints', n)));
}

/** Where a tournament is in time, in words. @param {Summary} s */
function phaseText(s) {
  if (s.phase === 'upcoming') return t('tour.startsIn', { t: left(s.starts_at) });
  if (s.phase === 'running' && s.kind === 'swiss') return t('tour.swiss.round', { r: s.round || 1, n: s.rounds || 0 });
  if (s.phase === 'running') return t('tour.endsIn', { t: left(s.ends_at) });
  if (s.phase === 'ending') return t('tour.ending');
  return t('tour.finished');
}

/**
 * Calls `tick` every 2 s while the page is visible (and at once when it
 * shows again); the returned function stops it.
 * @param {() => void} tick
 */
function poll(tick) {
  const timer = setInterval(() => { if (!document.hidden) tick(); }, 2000);
  const shown = () => { if (!document.hidden) tick(); };
  document.addEventListener('visibilitychange', shown);
  return () => { clearInterval(timer); document.removeEventListener('visibilitychange', shown); };
}

/** The list of arenas and the form to create one. @param {HTMLElement} main */
export function tournamentsPage(main) {
  /** @type {{upcoming: Summary[], running: Summary[], finished: Summary[]}|null} */
  let lists = null;
  /** @type {Me|null} */
  let me = null;
  /** @type {{field: string, text: string}|null} */
  let error = null;
  /** What the form holds between renders (a language change redraws it). */
  const draft = { name: '', kind: 'arena', clock: '3+2', rules: 'standard', rated: false, minutes: '30', rounds: '5', delay: '5', start: localInput(Date.now() + START_AHEAD_MS), bots: false };

  /** The last answer, as it came: an answer like it changes nothing. */
  let seen = '';
  function load() {
    call('GET', '/api/tournaments').then((v) => {
      const text = JSON.stringify(v);
      if (text === seen) return;
      seen = text;
      lists = v;
      redrawLists();
    }, () => {});
  }

  /** Only the lists change with each answer: the form keeps what is typed in it. */
  function redrawLists() {
    for (const kind of /** @type {const} */ (['running', 'upcoming', 'finished'])) {
      const old = document.getElementById(`tour-${kind}-section`);
      const parent = old && old.parentElement;
      if (old && parent) redrawKeeping(parent, () => old.replaceWith(section(kind, lists ? lists[kind] : undefined)));
    }
  }

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    error = null;
    // The field has whole minutes: a start within the minute just gone is now.
    const at = new Date(draft.start).getTime();
    const startsAt = Number.isNaN(at) ? 0 : at <= Date.now() && Date.now() - at < 60_000 ? Date.now() : at;
    try {
      const swiss = draft.kind === 'swiss';
      const r = await call('POST', '/api/tournaments', {
        name: draft.name.trim(), kind: draft.kind, clock: draft.clock, rules: draft.rules, rated: draft.rated,
        // A Swiss event pairs all its players at its start: they need time to join.
        ...(swiss
          ? { rounds: Number(draft.rounds) || 0, starts_at: Date.now() + Number(draft.delay) * 60000 }
          : { minutes: Number(draft.minutes) || 0, starts_at: startsAt, bots: draft.bots }),
      });
      location.assign(r.url);
    } catch (err) {
      const e2 = /** @type {import('./api.js').ApiError} */ (err);
      // A wrong field is named at the head of the server's message.
      const field = /^(name|clock|rules|minutes|rounds|starts_at)\b/.exec(e2.message || '');
      error = field ? { field: field[1], text: t(`tour.bad.${field[1]}`) } : { field: '', text: errorText(e2) };
      render();
      const bad = document.getElementById(`tour-${error.field || 'create'}-error`);
      if (bad) bad.focus();
    }
  }

  /** @param {string} field */
  function errorLine(field) {
    const mine = error && error.field === field;
    return h('p', { id: `tour-${field}-error`, class: 'bad', role: 'alert', tabindex: '-1', hidden: !mine }, mine && error ? error.text : '');
  }

  function form() {
    if (!me) return h('p', { class: 'muted' }, t('common.loading'));
    if (!me.account) return h('p', { id: 'tour-visitor' }, t('tour.visitor'));
    const bind = (/** @type {keyof typeof draft} */ k) => (/** @type {Event} */ e) => {
      const el = /** @type {HTMLInputElement} */ (e.target);
      /** @type {any} */ (draft)[k] = el.type === 'checkbox' ? el.checked : el.value;
    };
    const described = (/** @type {string} */ f) => (error && error.field === f ? { 'aria-invalid': 'true', 'aria-describedby': `tour-${f}-error` } : {});
    const pace = h('select', { id: 'tour-clock', onchange: bind('clock'), ...described('clock') },
      ...PACES.map((p) => h('option', { value: p, selected: p === draft.clock }, paceLabel(p))));
    const swiss = draft.kind === 'swiss';
    // The kind redraws the form: an arena has a length, a Swiss event rounds.
    const kind = h('select', { id: 'tour-kind', onchange: (/** @type {Event} */ e) => { bind('kind')(e); render(); const k = document.getElementById('tour-kind'); if (k) k.focus(); } },
      ...['arena', 'swiss'].map((k) => h('option', { value: k, selected: k === draft.kind }, t(`tour.kind.${k}`))));
    const length = swiss
      ? [h('label', { for: 'tour-rounds' }, t('tour.roundsLabel')),
        h('input', { id: 'tour-rounds', type: 'number', min: '3', max: '15', value: draft.rounds, oninput: bind('rounds'), onchange: bind('rounds'), ...described('rounds') }),
        errorLine('rounds'),
        h('label', { for: 'tour-delay' }, t('tour.swissStartLabel')),
        h('select', { id: 'tour-delay', onchange: bind('delay') },
          ...['2', '5', '10', '30', '60'].map((m) => h('option', { value: m, selected: m === draft.delay }, `${m} min`))),
        errorLine('starts_at')]
      : [h('label', { for: 'tour-minutes' }, t('tour.minutes')),
        h('input', { id: 'tour-minutes', type: 'number', min: '10', max: '180', value: draft.minutes, oninput: bind('minutes'), onchange: bind('minutes'), ...described('minutes') }),
        errorLine('minutes'),
        h('label', { for: 'tour-starts_at' }, t('tour.start')),
        h('input', { id: 'tour-starts_at', type: 'datetime-local', value: draft.start, oninput: bind('start'), onchange: bind('start'), ...described('starts_at') }),
        h('p', { class: 'hint', id: 'tour-start-hint' }, t('tour.startHint')),
        errorLine('starts_at')];
    const rules = h('select', { id: 'tour-rules', onchange: bind('rules'), ...described('rules') },
      ...['standard', 'no-trades', 'seeds=3', 'seeds=5'].map((r) => h('option', { value: r, selected: r === draft.rules }, rulesText(r))));
    return h('form', { id: 'tour-form', class: 'tour-form', onsubmit: create, novalidate: true },
      h('label', { for: 'tour-name' }, t('tour.name')),
      h('input', { id: 'tour-name', type: 'text', maxlength: '40', value: draft.name, oninput: bind('name'), onchange: bind('name'), autocomplete: 'off', ...described('name') }),
      errorLine('name'),
      h('label', { for: 'tour-kind' }, t('tour.kind')), kind,
      h('label', { for: 'tour-clock' }, t('tour.pace')), pace, errorLine('clock'),
      h('label', { for: 'tour-rules' }, t('tour.rules')), rules, errorLine('rules'),
      ...length,
      h('label', { class: 'choice', for: 'tour-rated' },
        h('input', { id: 'tour-rated', type: 'checkbox', checked: draft.rated, onchange: bind('rated') }), h('span', null, t('tour.ratedLabel'))),
      ...(swiss ? [h('p', { class: 'hint' }, t('tour.swissStarts'))] : [h('label', { class: 'choice', for: 'tour-bots' },
        h('input', { id: 'tour-bots', type: 'checkbox', checked: draft.bots, onchange: bind('bots') }), h('span', null, t('tour.allowBots')))]),
      h('button', { type: 'submit', id: 'tour-create' }, swiss ? t('tour.createSwiss') : t('tour.create')),
      errorLine('create'));
  }

  /** @param {string} kind @param {Summary[]|undefined} items */
  function section(kind, items) {
    const list = h('ul', { class: 'lobby-list', id: `tour-${kind}` });
    if (!items) list.append(h('li', { class: 'muted' }, t('common.loading')));
    else if (!items.length) list.append(h('li', { class: 'muted' }, t('tour.none')));
    else for (const s of items) {
      list.append(h('li', null,
        h('a', { class: 'who', href: `/tournament/${encodeURIComponent(s.id)}` }, s.name),
        h('span', { class: 'terms' }, termsText(s)),
        h('span', { class: 'muted' }, s.phase === 'upcoming' ? t('tour.startsAt', { t: when(s.starts_at) }) : phaseText(s)),
        h('span', { class: 'muted' }, tn('tour.players', s.players))));
    }
    return h('section', { class: 'card', id: `tour-${kind}-section`, 'aria-labelledby': `tour-${kind}-title` }, h('h2', { id: `tour-${kind}-title` }, t(`tour.${kind}`)), list);
  }

  function render() {
    document.title = `${t('tour.title')} · Goré`;
    main.textContent = '';
    main.append(h('div', { class: 'tournaments', id: 'tournaments' },
      h('h1', null, t('tour.title')),
      section('running', lists ? lists.running : undefined),
      section('upcoming', lists ? lists.upcoming : undefined),
      h('section', { class: 'card', 'aria-labelledby': 'tour-form-title' }, h('h2', { id: 'tour-form-title' }, t('tour.createTournament')), form()),
      section('finished', lists ? lists.finished : undefined)));
  }

  getMe().then((m) => { me = m; render(); }, () => { me = { name: '' }; render(); });
  load();
  const stop = poll(load);
  return { render, destroy: stop };
}

/** A tournament's page. @param {HTMLElement} main @param {string} id */
export function tournamentPage(main, id) {
  /** @type {Detail|null} */
  let detail = null;
  /** A Swiss event's page, in place of `detail`. @type {import('./swiss.js').SwissDetail|null} */
  let swiss = null;
  /** @param {Detail|import('./swiss.js').SwissDetail} v the page of either kind */
  const take = (v) => {
    if (v.tournament.kind === 'swiss') swiss = /** @type {import('./swiss.js').SwissDetail} */ (v);
    else detail = /** @type {Detail} */ (v);
  };
  /** @type {Me|null} */
  let me = null;
  let failure = '';
  let actionError = '';

  /** The last answer, as it came: an answer like it changes nothing. */
  let seen = '';
  function load() {
    call('GET', `/api/tournaments/${encodeURIComponent(id)}`).then((v) => {
      const text = JSON.stringify(v);
      if (text === seen && !failure) return;
      seen = text;
      take(v);
      failure = '';
      render();
    }, (e) => { if (!detail && !swiss) { failure = errorText(e); render(); } });
  }

  /** @param {'join'|'pause'|'withdraw'} what */
  async function act(what) {
    actionError = '';
    try {
      take(await call('POST', `/api/tournaments/${encodeURIComponent(id)}/${what}`, {}));
    } catch (e) {
      actionError = errorText(/** @type {import('./api.js').ApiError} */ (e));
    }
    render();
  }

  /** @param {Standing} s */
  function mine(s) {
    return !!me && (s.player === me.id || s.name === me.name);
  }

  function render() {
    // A new answer redraws the page: the focus and the open rounds stay.
    redrawKeeping(main, draw);
  }

  function draw() {
    main.textContent = '';
    if (failure) {
      document.title = `${t('tour.title')} · Goré`;
      main.append(h('section', { class: 'card' }, h('h1', null, t('tour.title')), h('p', { class: 'bad', role: 'alert' }, failure),
        h('p', null, h('a', { href: '/tournaments' }, t('tour.all')))));
      return;
    }
    if (swiss) {
      const s = swiss.tournament;
      document.title = `${s.name} · Goré`;
      main.append(h('div', { class: 'tournament', id: 'tournament' },
        h('h1', { id: 'tour-title' }, s.name),
        h('p', { class: 'terms', id: 'tour-terms' }, termsText(s)),
        h('p', { class: 'tour-phase', id: 'tour-phase', 'aria-live': 'off' }, phaseText(s)),
        ...swissParts(swiss, me, act, actionError),
        h('p', null, h('a', { href: '/tournaments' }, t('tour.all')))));
      return;
    }
    if (!detail) { main.append(h('p', { class: 'loading' }, t('common.loading'))); return; }
    const s = detail.tournament;
    document.title = `${s.name} · Goré`;
    const myLine = detail.standings.find(mine);
    const page = h('div', { class: 'tournament', id: 'tournament' },
      h('h1', { id: 'tour-title' }, s.name),
      h('p', { class: 'terms', id: 'tour-terms' }, termsText(s)),
      h('p', { class: 'tour-phase', id: 'tour-phase', 'aria-live': 'off' }, phaseText(s)));
    if (myLine && myLine.game) {
      page.append(h('p', { class: 'tour-paired', id: 'tour-paired' },
        h('a', { class: 'button', href: `/g/${encodeURIComponent(myLine.game)}`, id: 'tour-my-game' }, t('tour.paired'))));
    }
    const acting = h('p', { class: 'tour-actions', id: 'tour-actions' });
    if (me && !me.account) acting.append(t('tour.visitorJoin'));
    else if (me && s.phase !== 'finished' && s.phase !== 'ending') {
      if (!myLine || myLine.presence === 'paused') acting.append(h('button', { type: 'button', id: 'tour-join', onclick: () => act('join') }, t('tour.join')));
      else if (myLine.presence === 'joined') {
        acting.append(h('button', { type: 'button', id: 'tour-pause', class: 'secondary', onclick: () => act('pause') }, t('tour.pause')), ' ');
      }
      if (myLine && myLine.presence !== 'withdrawn') acting.append(h('button', { type: 'button', id: 'tour-withdraw', class: 'secondary', onclick: () => act('withdraw') }, t('tour.withdraw')));
      else if (myLine) acting.append(t('tour.withdrawn'));
    }
    page.append(acting);
    if (myLine && myLine.presence === 'paused' && s.phase !== 'finished' && s.phase !== 'ending') page.append(h('p', { class: 'muted', id: 'tour-paused' }, t('tour.pausedNote')));
    if (actionError) page.append(h('p', { class: 'bad', role: 'alert', id: 'tour-error' }, actionError));
    if (detail.featured) {
      page.append(h('p', { id: 'tour-featured' }, h('a', { href: `/g/${encodeURIComponent(detail.featured)}` }, t('tour.featured'))));
    }
    const rows = detail.standings.map((l) => h('tr', { class: mine(l) ? 'me' : null },
      h('td', null, String(l.rank)),
      h('td', null, h('a', { href: `/@/${encodeURIComponent(l.name)}` }, l.name), l.presence === 'withdrawn' ? h('span', { class: 'muted' }, ` (${t('tour.out')})`) : l.presence === 'paused' ? h('span', { class: 'muted paused-mark' }, ` (${t('tour.paused')})`) : null),
      h('td', { class: l.on_fire ? 'fire' : null }, String(l.score), l.on_fire ? h('span', { class: 'fire-mark', title: t('tour.fire') }, flame(), h('span', { class: 'sr-only' }, t('tour.fire'))) : null, berserkPoints(l)),
      h('td', null, String(l.games)),
      h('td', null, l.game ? h('a', { href: `/g/${encodeURIComponent(l.game)}` }, t('tour.watch')) : '')));
    const table = h('table', { class: 'tour-standings', id: 'tour-standings' },
      h('caption', null, t('tour.standings')),
      // "#" for the rank: five columns must fit a phone's width.
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, h('span', { 'aria-hidden': 'true' }, '#'), h('span', { class: 'sr-only' }, t('tour.col.rank'))),
        ...['player', 'score', 'games', 'game'].map((c) => h('th', { scope: 'col' }, t(`tour.col.${c}`))))),
      h('tbody', null, ...rows));
    page.append(detail.standings.length ? h('section', { class: 'card' }, table)
      : h('section', { class: 'card' }, h('h2', null, t('tour.standings')), h('p', { class: 'muted', id: 'tour-empty' }, t('tour.empty'))));
    page.append(h('p', null, h('a', { href: '/tournaments' }, t('tour.all'))));
    main.append(page);
  }

  getMe().then((m) => { me = m; render(); }, () => {});
  load();
  const stop = poll(load);
  // The countdown moves between answers.
  const clock = setInterval(() => {
    const el = document.getElementById('tour-phase');
    const shown = swiss || detail;
    if (el && shown) el.textContent = phaseText(shown.tournament);
  }, 1000);
  return { render, destroy: () => { stop(); clearInterval(clock); } };
}
