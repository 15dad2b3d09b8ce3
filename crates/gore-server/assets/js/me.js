// @ts-check
// The player on the home page: his display name (changed in place), and
// his account, if he wants one: sign up, log in, log out, a new password.
// The server checks every name and password and says why one is refused;
// the page shows what it answers (as text: a name never becomes HTML).

import { call, forgetAllGames, getMe, setName } from './api.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { t } from './i18n.js';

/**
 * The account forms' errors: the password workers busy and too many
 * attempts said plainly (the general sentences speak of games and
 * requests); the others as everywhere.
 * @param {{code?: string, message?: string}|null|undefined} err
 */
function accountError(err) {
  const code = err && err.code;
  if (code === 'busy') return t('me.busy');
  if (code === 'rate_limited') return t('me.tooManyAttempts');
  return errorText(err);
}

/**
 * A small form: its fields, a submit button, the error line; `send`
 * answers or throws an API error, said by `explain`.
 * @param {string} id @param {{name: string, label: string, type?: string, value?: string, auto?: string}[]} fields
 * @param {string} submit @param {(v: Record<string, string>) => Promise<void>} send @param {() => void} cancel
 * @param {(err: {code?: string, message?: string}) => string} [explain]
 */
function miniForm(id, fields, submit, send, cancel, explain = errorText) {
  const error = h('p', { id: `${id}-error`, class: 'bad', role: 'alert', hidden: true });
  /** @type {Record<string, HTMLInputElement>} */
  const inputs = {};
  const form = h('form', { id, class: 'name-form account-form' });
  for (const f of fields) {
    const input = /** @type {HTMLInputElement} */ (h('input', { id: `${id}-${f.name}`, name: f.name, type: f.type || 'text', autocomplete: f.auto || 'off', required: true }));
    if (f.value) input.value = f.value;
    inputs[f.name] = input;
    form.append(h('label', { for: `${id}-${f.name}` }, f.label), input);
  }
  form.append(h('button', { type: 'submit', class: 'small primary', id: `${id}-submit` }, submit),
    h('button', { type: 'button', class: 'small', onclick: cancel }, t('me.cancel')), error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    /** @type {Record<string, string>} */
    const v = {};
    for (const [k, input] of Object.entries(inputs)) v[k] = input.value;
    try {
      await send(v);
    } catch (err) {
      error.hidden = false;
      error.textContent = explain(/** @type {import('./api.js').ApiError} */ (err));
    }
  });
  return form;
}

/**
 * The name line (with its editor, or the account's page) and, apart, the
 * account's buttons and forms (sign up, log in; a new password, log out):
 * the name stays in the first screen of a phone, the account below.
 */
export function nameCard() {
  const card = h('div', { class: 'my-name', id: 'my-name-card' });
  const account = h('div', { class: 'my-account', id: 'my-account' });
  /** @type {{name: string, id?: string, account?: boolean}|null} */
  let me = null;
  /** @type {'' | 'name' | 'signup' | 'login' | 'password'} */
  let open = '';

  /** Reloads the page after a log-in or out: everything is the new session's. */
  const reload = () => location.reload();

  function draw() {
    card.textContent = '';
    account.textContent = '';
    const name = h('strong', { id: 'my-name' }, me ? me.name : '…');
    const line = h('p', { class: 'my-name-line', id: 'my-name-line' }, t('me.playingAs'), ' ', name, ' ');
    card.append(line);
    if (!me) return;
    const buttons = h('p', { class: 'my-account-line' });
    account.append(buttons);
    if (me.account) {
      line.append(h('a', { href: `/@/${encodeURIComponent(me.name)}`, class: 'button small ghost', id: 'my-page' }, t('me.myPage')));
      buttons.append(h('button', { type: 'button', class: 'ghost small', id: 'password-open', onclick: () => show('password') }, t('me.password')), ' ',
        h('button', { type: 'button', class: 'ghost small', id: 'logout', onclick: async () => {
          try {
            await call('POST', '/api/account/logout', {});
            // "Your games" were the account's: they leave with it.
            forgetAllGames();
            reload();
          } catch (e) { toast(errorText(/** @type {import('./api.js').ApiError} */ (e))); }
        } }, t('me.logout')));
    } else {
      line.append(h('button', { type: 'button', class: 'ghost small', id: 'name-edit', onclick: () => show('name') }, t('me.change')));
      buttons.append(h('span', { class: 'hint' }, t('me.signupHint')), ' ',
        h('button', { type: 'button', class: 'ghost small', id: 'signup-open', onclick: () => show('signup') }, t('me.signup')), ' ',
        h('button', { type: 'button', class: 'ghost small', id: 'login-open', onclick: () => show('login') }, t('me.login')));
    }
    const cancel = () => show('');
    if (open === 'name') {
      card.append(miniForm('name-form', [{ name: 'name', label: t('me.label'), value: me.name, auto: 'nickname' }], t('me.save'), async (v) => {
        const r = await setName(v.name);
        me = { ...me, name: r.name };
        toast(t('me.saved', { name: r.name }));
        show('');
      }, cancel), h('p', { class: 'hint', id: 'name-hint' }, t('me.hint')));
    } else if (open === 'signup') {
      account.append(miniForm('signup-form', [
        { name: 'username', label: t('me.username'), value: me.name, auto: 'username' },
        { name: 'password', label: t('me.passwordLabel'), type: 'password', auto: 'new-password' },
      ], t('me.signup'), async (v) => {
        await call('POST', '/api/account/signup', v);
        reload();
      }, cancel, accountError));
    } else if (open === 'login') {
      account.append(miniForm('login-form', [
        { name: 'username', label: t('me.username'), auto: 'username' },
        { name: 'password', label: t('me.passwordLabel'), type: 'password', auto: 'current-password' },
      ], t('me.login'), async (v) => {
        await call('POST', '/api/account/login', v);
        reload();
      }, cancel, accountError));
    } else if (open === 'password') {
      account.append(miniForm('password-form', [
        { name: 'current', label: t('me.currentPassword'), type: 'password', auto: 'current-password' },
        { name: 'new', label: t('me.newPassword'), type: 'password', auto: 'new-password' },
      ], t('me.save'), async (v) => {
        await call('POST', '/api/account/password', v);
        toast(t('me.passwordChanged'));
        show('');
      }, cancel, accountError));
    }
  }

  /** @param {'' | 'name' | 'signup' | 'login' | 'password'} which */
  function show(which) {
    open = which;
    draw();
    const first = /** @type {HTMLInputElement|null} */ ((which === 'name' ? card : account).querySelector('form input'));
    if (first) {
      first.focus();
      first.select();
    }
  }

  getMe().then((m) => { me = m; draw(); }, () => { me = { name: '?' }; draw(); });
  draw();
  return { card, account };
}
