// @ts-check
// The home page: a new game (computer, friend, one device) and this
// browser's games.

import { createGame, forgetGame, getGame, myGames, rememberGame } from './api.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { t, tn } from './i18n.js';
import { parseGpn } from './gpn.js';

const FORM_KEY = 'gore.newGame';

function savedForm() {
  try {
    return JSON.parse(localStorage.getItem(FORM_KEY) || '{}') || {};
  } catch (_) {
    return {};
  }
}

/** @param {HTMLElement} main */
export function homePage(main) {
  /** @type {Map<string, any>} */
  const states = new Map();
  let busy = false;

  function render() {
    document.title = `Goré · ${t('home.title')}`;
    main.textContent = '';
    const f = savedForm();
    const mode = f.mode || 'ai';
    const radio = (/** @type {string} */ name, /** @type {string} */ value, /** @type {string} */ label, /** @type {boolean} */ checked, /** @type {string} */ hint = '') => h('label', { class: 'choice' },
      h('input', { type: 'radio', name, value, id: `${name}-${value}`, checked }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, label), hint ? h('span', { class: 'hint' }, hint) : null));
    const check = (/** @type {string} */ opt, /** @type {boolean} */ checked) => h('label', { class: 'choice' },
      h('input', { type: 'checkbox', name: 'rule', value: opt, id: `rule-${opt}`, checked }),
      h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, h('code', null, opt), ' ', t(`rules.opt.${opt}`)), h('span', { class: 'hint' }, t(`rules.opt.${opt}.hint`))));

    const levelSelect = h('select', { id: 'level', name: 'level' });
    for (let l = 1; l <= 8; l++) {
      levelSelect.append(h('option', { value: l, selected: Number(f.level || 3) === l }, t('home.levelN', { n: l }) + (l === 1 ? ` (${t('home.levelEasiest')})` : l === 8 ? ` (${t('home.levelStrongest')})` : '')));
    }
    const rulesChecked = new Set(f.rules || []);
    // seeds=N (3 to 8, RULES.md "Options"); 6 is the standard game.
    const seedsSelect = h('select', { id: 'seeds', name: 'seeds' });
    for (let n = 3; n <= 8; n++) {
      seedsSelect.append(h('option', { value: n, selected: Number(f.seeds || 6) === n }, t('home.seeds.option', { n, total: 8 * n })));
    }
    const form = h('form', { id: 'new-game', class: 'card', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); start(/** @type {HTMLFormElement} */ (form)); } },
      h('h2', null, t('home.newGame')),
      h('fieldset', { class: 'modes' },
        h('legend', null, t('home.opponent')),
        radio('mode', 'ai', t('home.mode.ai'), mode === 'ai', t('home.mode.ai.hint')),
        radio('mode', 'friend', t('home.mode.friend'), mode === 'friend', t('home.mode.friend.hint')),
        radio('mode', 'local', t('home.mode.local'), mode === 'local', t('home.mode.local.hint'))),
      h('fieldset', { class: 'ai-only' },
        h('legend', null, t('home.computer')),
        h('label', { class: 'field', for: 'level' }, h('span', null, t('home.level')), levelSelect),
        h('label', { class: 'choice' }, h('input', { type: 'checkbox', id: 'honourable', name: 'honourable', checked: !!f.honourable }),
          h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t('home.honourable')), h('span', { class: 'hint' }, t('home.honourable.hint'))))),
      h('fieldset', { class: 'colour-field' },
        h('legend', null, t('home.colour')),
        h('div', { class: 'inline-choices' },
          radio('colour', 'A', t('home.colour.A'), (f.colour || 'A') === 'A'),
          radio('colour', 'B', t('home.colour.B'), f.colour === 'B'),
          radio('colour', 'random', t('home.colour.random'), f.colour === 'random'))),
      h('fieldset', null,
        h('legend', null, t('home.ruleOptions')),
        h('label', { class: 'field', for: 'seeds' }, h('span', null, t('home.seeds')), seedsSelect),
        h('p', { class: 'hint' }, t('home.seeds.hint')),
        check('skip-origin', rulesChecked.has('skip-origin')),
        check('no-trades', rulesChecked.has('no-trades')),
        check('cede-all', rulesChecked.has('cede-all'))),
      h('button', { type: 'submit', class: 'primary big', id: 'start-game' }, t('home.start')));

    const syncMode = () => {
      const m = /** @type {HTMLInputElement|null} */ (form.querySelector('input[name=mode]:checked'));
      const v = m ? m.value : 'ai';
      form.querySelectorAll('.ai-only').forEach((el) => { /** @type {HTMLElement} */ (el).hidden = v !== 'ai'; });
      form.querySelectorAll('.colour-field').forEach((el) => { /** @type {HTMLElement} */ (el).hidden = v === 'local'; });
    };
    form.addEventListener('change', syncMode);
    syncMode();

    main.append(
      h('section', { class: 'hero' },
        h('h1', null, 'Goré'),
        h('p', { class: 'lead' }, t('home.lead')),
        h('p', null, h('a', { href: '/rules' }, t('home.readRules')))),
      form,
      gamesSection(),
    );
  }

  function gamesSection() {
    const list = myGames();
    const section = h('section', { class: 'card', id: 'my-games', 'aria-labelledby': 'my-games-title' },
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
    section.append(h('h3', null, t('home.inProgress')), live.childElementCount ? live : h('p', { class: 'muted' }, t('home.noGamesInProgress')));
    if (done.childElementCount) section.append(h('h3', null, t('home.finished')), done);
    return section;
  }

  /** @param {{id: string, mode?: string, seat?: string}} g @param {any} s */
  function gameItem(g, s) {
    const mode = (s && s.mode) || g.mode || 'ai';
    let title = t(`mode.${mode}`);
    if (s && mode === 'ai') {
      const ai = s.seats && (s.seats.A.kind === 'ai' ? s.seats.A : s.seats.B);
      if (ai && ai.level) title += ` · ${t('home.levelN', { n: ai.level })}`;
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

  /** @param {HTMLFormElement} form */
  async function start(form) {
    if (busy) return;
    const fd = new FormData(form);
    const mode = String(fd.get('mode') || 'ai');
    const rules = /** @type {string[]} */ (fd.getAll('rule').map(String));
    const seeds = Number(fd.get('seeds') || 6);
    const level = Number(fd.get('level') || 3);
    const colour = String(fd.get('colour') || 'A');
    const honourable = fd.get('honourable') !== null;
    try { localStorage.setItem(FORM_KEY, JSON.stringify({ mode, rules, seeds, level, colour, honourable })); } catch (_) { /* ignore */ }
    const options = seeds === 6 ? rules : [`seeds=${seeds}`, ...rules];
    /** @type {any} */
    const req = { mode, rules: options.length ? options.join(',') : 'standard' };
    if (mode === 'ai') { req.level = level; req.honourable = honourable; }
    if (mode !== 'local') req.colour = colour;
    busy = true;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('#start-game'));
    button.disabled = true;
    button.textContent = t('home.starting');
    try {
      const res = await createGame(req);
      rememberGame({ id: res.id, mode, seat: res.seat, invite: res.invite });
      location.assign(res.url || `/g/${res.id}`);
    } catch (e) {
      toast(t('error.create', { message: errorText(/** @type {any} */ (e)) }));
      button.disabled = false;
      button.textContent = t('home.start');
    } finally {
      busy = false;
    }
  }

  refreshGames();
  return { render };
}
