// @ts-check
// The home page: one click starts a game (the computer, a friend, two on
// this device) with the details one click away, in plain words; and this
// browser's games. The defaults of a new game are the server's (it writes
// them into the page: <meta name="gore-defaults">), so the page shows what
// the API would choose.

import { createGame, forgetGame, getGame, myGames, rememberGame, solverInfo } from './api.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { assetUrl, gameKind, rulesText, t, tn } from './i18n.js';
import { parseGpn } from './gpn.js';
import { paceLabel } from './clock.js';
import { nameCard } from './me.js';
import { lobbySection } from './lobby.js';
import { offerLessons, saveProgress } from './progress.js';

const FORM_KEY = 'gore.newGame';
/** The options of the rules a newcomer may choose (RULES.md, "Options"). */
const RULE_OPTIONS = ['skip-origin', 'no-trades', 'cede-all'];

/**
 * The server's defaults of a new game, and its number of levels (the top
 * level's number): the ladder is the server's, never written here.
 */
function serverDefaults() {
  /** @type {{level: number, levels: number, colour: string, paces: string[]}} */
  const d = { level: 1, levels: 1, colour: 'random', paces: [] };
  const meta = document.querySelector('meta[name="gore-defaults"]');
  try {
    const v = JSON.parse((meta && meta.getAttribute('content')) || '{}');
    if (Number.isInteger(v.levels) && v.levels >= 1) d.levels = v.levels;
    if (Number.isInteger(v.level) && v.level >= 1 && v.level <= d.levels) d.level = v.level;
    if (['A', 'B', 'random'].includes(v.colour)) d.colour = v.colour;
    if (Array.isArray(v.paces)) d.paces = v.paces.filter((/** @type {any} */ p) => typeof p === 'string' && /^\d+(\+\d+|d)$/.test(p));
  } catch (_) { /* the built-in copy: one level, the weakest */ }
  return d;
}

/** A level's name in the player's language ("Beginner"). @param {number} n */
function levelName(n) {
  return t(`level.${n}.name`);
}

/** What a level sees, in a sentence with its name. @param {number} n */
function levelDescription(n) {
  return t('home.levelDescribed', { name: levelName(n), desc: t(`level.${n}.desc`) });
}

/**
 * The choices for the next game: the player's last ones, else the
 * server's defaults.
 * @returns {{level: number, perfect: boolean, colour: string, honourable: boolean, seeds: number, rules: string[], clock: string}}
 */
function choices() {
  const d = serverDefaults();
  /** @type {any} */
  let f = {};
  try { f = JSON.parse(localStorage.getItem(FORM_KEY) || '{}') || {}; } catch (_) { f = {}; }
  const level = Number(f.level);
  const seeds = Number(f.seeds);
  return {
    level: Number.isInteger(level) && level >= 1 && level <= d.levels ? level : d.level,
    perfect: !!f.perfect,
    colour: ['A', 'B', 'random'].includes(f.colour) ? f.colour : d.colour,
    honourable: !!f.honourable,
    seeds: Number.isInteger(seeds) && seeds >= 3 && seeds <= 8 ? seeds : 6,
    rules: Array.isArray(f.rules) ? f.rules.filter((/** @type {any} */ r) => RULE_OPTIONS.includes(r)) : [],
    clock: d.paces.includes(f.clock) ? f.clock : 'none',
  };
}

/** @param {ReturnType<typeof choices>} c */
function saveChoices(c) {
  try { localStorage.setItem(FORM_KEY, JSON.stringify(c)); } catch (_) { /* ignore */ }
}

/** The board as a picture (decorative: the text says what it is). */
function boardPicture() {
  return h('img', {
    class: 'home-board', alt: '', width: 272, height: 150,
    src: assetUrl('img/board.svg'),
  });
}

/** @param {HTMLElement} main */
export function homePage(main) {
  /** The remembered games' states, once read. @type {Map<string, import('./wire.js').GameState>} */
  const states = new Map();
  let busy = false;
  /** The rule sets the server's perfect player plays (GET /api/solver). @type {string[]} */
  let perfectRules = [];

  /**
   * Whether the perfect player plays a game of these rule options: no
   * trades, and a database of the same skip-origin on the server.
   * @param {string[]} rules
   */
  function perfectOffered(rules) {
    if (!rules.includes('no-trades')) return false;
    return perfectRules.includes(rules.includes('skip-origin') ? 'no-trades,skip-origin' : 'no-trades');
  }

  /**
   * The level list offers "perfect" only where it plays; the player's
   * saved choice comes back with it. @param {HTMLFormElement} form
   */
  function syncPerfect(form) {
    const select = /** @type {HTMLSelectElement | null} */ (form.querySelector('#level'));
    if (!select) return;
    const rules = new FormData(form).getAll('rule').map(String);
    const existing = select.querySelector('option[value="perfect"]');
    if (perfectOffered(rules)) {
      if (!existing) {
        select.append(h('option', { value: 'perfect' }, t('home.levelPerfect')));
        if (choices().perfect) select.value = 'perfect';
      }
    } else if (existing) {
      if (select.value === 'perfect') select.value = String(serverDefaults().levels);
      existing.remove();
    }
  }

  /** @type {ReturnType<typeof lobbySection>|null} */
  let lobby = null;
  /** A fresh lobby (in the page's language), the old one closed. */
  function lobbyNow() {
    if (lobby) lobby.close();
    lobby = lobbySection({
      terms: () => {
        const f = /** @type {HTMLFormElement} */ (document.getElementById('new-game'));
        const c = read(f);
        return { rules: rulesOf(c), clock: c.clock, colour: c.colour };
      },
    });
    return lobby;
  }

  /** The offer of the lessons to a first-time visitor (gone once he opens one or says no): none or one element. */
  function welcomeLessons() {
    if (!offerLessons()) return [];
    return [h('aside', { class: 'learn-welcome', id: 'learn-welcome', 'aria-labelledby': 'learn-welcome-title' },
      h('p', null, h('strong', { id: 'learn-welcome-title' }, t('learn.welcome.title')), ' ', t('learn.welcome.text')),
      h('div', { class: 'button-row' },
        h('a', { href: '/learn?lesson=sow', class: 'button primary', id: 'learn-welcome-start' }, t('learn.welcome.start')),
        h('button', {
          type: 'button', class: 'ghost small', id: 'learn-welcome-dismiss',
          onclick: () => { saveProgress({ dismissed: true }); render(); const r = document.querySelector('.read-rules'); if (r) /** @type {HTMLElement} */ (r).focus(); },
        }, t('learn.welcome.dismiss'))))];
  }

  function render() {
    const me = nameCard();
    document.title = `Goré · ${t('home.title')}`;
    main.textContent = '';
    const c = choices();
    const open = !!(document.getElementById('game-options') && /** @type {HTMLDetailsElement} */ (document.getElementById('game-options')).open);

    const levels = serverDefaults().levels;
    const levelSelect = h('select', { id: 'level', name: 'level', 'aria-describedby': 'level-desc' });
    for (let l = 1; l <= levels; l++) {
      levelSelect.append(h('option', { value: l, selected: c.level === l }, t('home.levelOption', { n: l, name: levelName(l) })));
    }
    // Its height kept for the longest description (CSS): nothing below moves.
    const levelDesc = h('p', { class: 'hint level-desc', id: 'level-desc', 'aria-live': 'polite' }, choiceDescription(c));
    const seedsSelect = h('select', { id: 'seeds', name: 'seeds' });
    for (let n = 3; n <= 8; n++) {
      seedsSelect.append(h('option', { value: n, selected: c.seeds === n }, t('home.seeds.option', { n, total: 8 * n })));
    }
    const clockSelect = h('select', { id: 'clock', name: 'clock' },
      h('option', { value: 'none', selected: c.clock === 'none' }, t('home.clock.none')),
      ...serverDefaults().paces.map((p) => h('option', { value: p, selected: c.clock === p }, paceLabel(p))));
    const radio = (/** @type {string} */ value, /** @type {string} */ label) => h('label', { class: 'choice' },
      h('input', { type: 'radio', name: 'colour', value, id: `colour-${value}`, checked: c.colour === value }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, label)));
    // Plain words only: the option's code is the record's business.
    const check = (/** @type {string} */ opt) => h('label', { class: 'choice' },
      h('input', { type: 'checkbox', name: 'rule', value: opt, id: `rule-${opt}`, checked: c.rules.includes(opt) }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t(`home.rule.${opt}`)), h('span', { class: 'hint' }, t(`rules.opt.${opt}.hint`))));

    const summary = h('p', { class: 'hint', id: 'game-summary' }, summaryText(c));
    const details = h('details', { id: 'game-options', class: 'game-options', open },
      h('summary', null, t('home.details')),
      h('div', { class: 'options-grid' },
        h('fieldset', null,
          h('legend', null, t('home.computer')),
          h('label', { class: 'field', for: 'level' }, h('span', null, t('home.level')), levelSelect),
          levelDesc,
          h('label', { class: 'choice' }, h('input', { type: 'checkbox', id: 'honourable', name: 'honourable', checked: c.honourable }),
            h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t('home.honourable')), h('span', { class: 'hint' }, t('home.honourable.hint'))))),
        h('fieldset', null,
          h('legend', null, t('home.colour')),
          h('div', { class: 'inline-choices' },
            radio('A', t('home.colour.A')),
            radio('B', t('home.colour.B')),
            radio('random', t('home.colour.random'))),
          h('p', { class: 'hint' }, t('home.colour.hint'))),
        h('fieldset', null,
          h('legend', null, t('home.clock')),
          h('label', { class: 'field', for: 'clock' }, h('span', null, t('home.clock.label')), clockSelect),
          h('p', { class: 'hint' }, t('home.clock.hint'))),
        h('fieldset', null,
          h('legend', null, t('home.ruleOptions')),
          h('label', { class: 'field', for: 'seeds' }, h('span', null, t('home.seeds')), seedsSelect),
          h('p', { class: 'hint' }, t('home.seeds.hint')),
          ...RULE_OPTIONS.map(check))));

    const play = (/** @type {string} */ mode, /** @type {string} */ cls) => h('button', {
      type: 'submit', id: `play-${mode}`, class: `play-button ${cls}`, value: mode, 'aria-describedby': `play-${mode}-hint`,
    }, h('span', { class: 'play-label' }, t(`home.play.${mode}`)), h('span', { class: 'play-hint', id: `play-${mode}-hint` }, t(`home.mode.${mode}.hint`, { max: levels })));

    const form = h('form', { id: 'new-game', class: 'card new-game', 'aria-labelledby': 'new-game-title' },
      h('h2', { id: 'new-game-title' }, t('home.newGame')),
      h('div', { class: 'play-buttons' },
        play('ai', 'primary'),
        play('friend', ''),
        play('local', '')),
      summary,
      details);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const submitter = /** @type {any} */ (e).submitter;
      start(/** @type {HTMLFormElement} */ (form), submitter && submitter.value ? String(submitter.value) : 'ai');
    });
    form.addEventListener('change', () => {
      syncPerfect(/** @type {HTMLFormElement} */ (form));
      const next = read(/** @type {HTMLFormElement} */ (form));
      saveChoices(next);
      summary.textContent = summaryText(next);
      levelDesc.textContent = choiceDescription(next);
    });

    main.append(
      h('section', { class: 'hero' },
        h('div', { class: 'hero-text' },
          h('h1', null, 'Goré'),
          h('p', { class: 'lead' }, t('home.lead'), ' ', h('a', { href: '/rules', class: 'read-rules' }, t('home.readRules'))),
          me.card),
        boardPicture()),
      // The computer's button stays in the first screen of a phone; the
      // lobby follows the new game.
      h('div', { class: 'home-grid' }, form, gamesSection()),
      // Right after the new game and one's games, which keep the first
      // screen of a phone (the home page's browser test checks it).
      ...welcomeLessons(),
      lobbyNow().section,
      h('section', { class: 'card account-card', id: 'account-card', 'aria-label': t('me.signup') }, me.account),
    );
    syncPerfect(/** @type {HTMLFormElement} */ (form));
    const now = read(/** @type {HTMLFormElement} */ (form));
    summary.textContent = summaryText(now);
    levelDesc.textContent = choiceDescription(now);
  }

  /** The chosen level in a sentence. @param {{level: number, perfect: boolean}} c */
  function choiceDescription(c) {
    return c.perfect ? t('home.levelPerfect.desc') : levelDescription(c.level);
  }

  /** What the next game will be, in words. @param {ReturnType<typeof choices>} c */
  function summaryText(c) {
    return [
      c.perfect ? t('home.summary.perfect') : t('home.summary.level', { n: c.level, name: levelName(c.level) }),
      t(`home.summary.side.${c.colour}`),
      rulesText(rulesOf(c)),
    ].join(' · ');
  }

  /**
   * The rules code of the choices (`seeds=4,no-trades`, `standard`): what
   * the server is sent, and what the page says in words.
   * @param {{seeds: number, rules: string[]}} c
   */
  function rulesOf(c) {
    const options = c.seeds === 6 ? c.rules : [`seeds=${c.seeds}`, ...c.rules];
    return options.length ? options.join(',') : 'standard';
  }

  /** The form's choices. @param {HTMLFormElement} form */
  function read(form) {
    const fd = new FormData(form);
    const level = String(fd.get('level') || serverDefaults().level);
    return {
      // The perfect player searches as the top level above its database.
      level: level === 'perfect' ? serverDefaults().levels : Number(level),
      perfect: level === 'perfect',
      colour: String(fd.get('colour') || 'random'),
      honourable: fd.get('honourable') !== null,
      seeds: Number(fd.get('seeds') || 6),
      rules: /** @type {string[]} */ (fd.getAll('rule').map(String)),
      clock: String(fd.get('clock') || 'none'),
    };
  }

  function gamesSection() {
    const list = myGames();
    const section = h('section', { class: 'card my-games', id: 'my-games', 'aria-labelledby': 'my-games-title' },
      h('h2', { id: 'my-games-title' }, t('home.myGames')));
    if (!list.length) {
      section.append(h('p', { class: 'muted' }, t('home.noGames')));
      return section;
    }
    const live = h('ul', { class: 'game-list', id: 'games-in-progress' });
    const done = h('ul', { class: 'game-list', id: 'games-finished' });
    for (const g of list) {
      const s = states.get(g.id);
      const li = gameItem(g, s);
      if (s && s.status === 'over') done.append(li);
      else live.append(li);
    }
    // The two headings only when there are both kinds: a short list
    // stays on the first screen of a phone.
    if (!done.childElementCount) {
      section.append(live);
      return section;
    }
    section.append(h('h3', null, t('home.inProgress')), live.childElementCount ? live : h('p', { class: 'muted' }, t('home.noGamesInProgress')));
    section.append(h('h3', null, t('home.finished')), done);
    return section;
  }

  /** @param {{id: string, mode?: string, seat?: string}} g @param {import('./wire.js').GameState|undefined} s */
  function gameItem(g, s) {
    const mode = (s && s.mode) || g.mode || 'ai';
    let title = gameKind(s || { mode });
    if (s && mode === 'ai') {
      // An ai game: the seat that is not A's AI is B's.
      const ai = /** @type {import('./wire.js').AiSeat|undefined} */ (s.seats && (s.seats.A.kind === 'ai' ? s.seats.A : s.seats.B));
      if (ai && ai.perfect) title += ` · ${t('home.levelPerfect')}`;
      else if (ai && ai.level) title += ` · ${t('home.levelOption', { n: ai.level, name: levelName(ai.level) })}`;
    }
    const bits = [];
    if (!s) bits.push(t('common.loading'));
    else {
      const you = s.you;
      if (you === 'A' || you === 'B') bits.push(t('home.youAre', { player: you }));
      if (s.status === 'waiting') bits.push(t('status.waitingFriend'));
      else if (s.status === 'over' && s.result) {
        const r = s.result;
        bits.push(`${r.seeds[0]}–${r.seeds[1]}`);
        bits.push(r.winner ? t('result.winner', { player: r.winner }) : t('result.draw'));
      } else {
        const p = safePos(s.position);
        if (p) bits.push(`${p.captured.A}–${p.captured.B}`);
        if (s.legal && s.legal.length) bits.push(t('status.yourTurnShort'));
        else if (p) bits.push(t('status.toMove', { player: p.toMove }));
      }
      bits.push(tn('home.moves', s.actions ? s.actions.length : 0));
    }
    const yourTurn = s && s.legal && s.legal.length && s.status !== 'over';
    return h('li', { class: `game-item${yourTurn ? ' your-turn' : ''}`, 'data-game': g.id },
      h('a', { href: `/g/${g.id}`, class: 'game-link' }, h('span', { class: 'game-title' }, title), h('span', { class: 'game-meta' }, bits.join(' · '))),
      h('button', { type: 'button', class: 'ghost small', 'aria-label': t('home.forgetAria', { id: g.id }), onclick: () => { forgetGame(g.id); render(); } }, t('home.forget')));
  }

  /** @param {string} gpn */
  function safePos(gpn) {
    try { return parseGpn(gpn); } catch (_) { return null; }
  }

  async function refreshGames() {
    // A few at a time, the most recent first: the server limits requests.
    const queue = myGames().slice(0, 30);
    const worker = async () => {
      for (let g = queue.shift(); g; g = queue.shift()) {
        try {
          states.set(g.id, await getGame(g.id));
        } catch (e) {
          if (/** @type {any} */ (e).code === 'not_found') forgetGame(g.id);
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    const old = document.getElementById('my-games');
    if (old && old.isConnected) old.replaceWith(gamesSection());
  }

  /**
   * Starts a game of `mode` with the form's choices.
   * @param {HTMLFormElement} form
   * @param {string} mode
   */
  async function start(form, mode) {
    if (busy) return;
    const c = read(form);
    saveChoices(c);
    /** @type {any} */
    const req = { mode, rules: rulesOf(c) };
    if (mode === 'ai') {
      if (c.perfect && perfectOffered(c.rules)) req.perfect = true;
      else req.level = c.level;
      req.honourable = c.honourable;
    }
    if (mode !== 'local') req.colour = c.colour;
    if (mode === 'friend' && c.clock !== 'none') req.clock = c.clock;
    busy = true;
    const buttons = /** @type {HTMLButtonElement[]} */ ([...form.querySelectorAll('.play-button')]);
    const button = /** @type {HTMLButtonElement} */ (form.querySelector(`#play-${mode}`));
    const label = /** @type {HTMLElement} */ (button.querySelector('.play-label'));
    for (const b of buttons) b.disabled = true;
    label.textContent = t('home.starting');
    try {
      const res = await createGame(req);
      rememberGame({ id: res.id, mode, seat: res.seat, invite: res.invite });
      location.assign(res.url || `/g/${res.id}`);
    } catch (e) {
      toast(t('error.create', { message: errorText(/** @type {import('./api.js').ApiError} */ (e)) }));
      for (const b of buttons) b.disabled = false;
      label.textContent = t(`home.play.${mode}`);
    } finally {
      busy = false;
    }
  }

  refreshGames();
  // The perfect level, once the server has said where it plays.
  solverInfo().then((v) => {
    perfectRules = v && Array.isArray(v.perfect) ? v.perfect.map(String) : [];
    const form = /** @type {HTMLFormElement | null} */ (document.getElementById('new-game'));
    if (form && form.isConnected && perfectRules.length) {
      syncPerfect(form);
      const summary = document.getElementById('game-summary');
      if (summary) summary.textContent = summaryText(read(form));
      const desc = document.getElementById('level-desc');
      if (desc) desc.textContent = choiceDescription(read(form));
    }
  }, () => { /* no perfect level */ });
  return { render };
}
