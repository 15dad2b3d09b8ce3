// @ts-check
// The player's display name on the home page: shown, and changed in place.
// The server checks every name and says why one is refused; the page only
// shows what it answers (as text: a name never becomes HTML).

import { getMe, setName } from './api.js';
import { h, toast } from './dom.js';
import { errorText } from './errors.js';
import { t } from './i18n.js';

/** The name line with its editor; fills itself once the server answers. */
export function nameCard() {
  const name = h('strong', { id: 'my-name' }, '…');
  const line = h('p', { class: 'my-name-line', id: 'my-name-line' }, t('me.playingAs'), ' ', name, ' ');
  const input = /** @type {HTMLInputElement} */ (h('input', { id: 'name-input', name: 'name', maxlength: 20, minlength: 3, autocomplete: 'nickname', 'aria-describedby': 'name-hint name-error', required: true }));
  const error = h('p', { id: 'name-error', class: 'bad', role: 'alert', hidden: true });
  const form = h('form', { id: 'name-form', class: 'name-form', hidden: true },
    h('label', { for: 'name-input' }, t('me.label')), input,
    h('button', { type: 'submit', class: 'small primary', id: 'name-save' }, t('me.save')),
    h('button', { type: 'button', class: 'small', id: 'name-cancel', onclick: () => show(false) }, t('me.cancel')),
    h('p', { class: 'hint', id: 'name-hint' }, t('me.hint')),
    error);
  const edit = h('button', { type: 'button', class: 'ghost small', id: 'name-edit', onclick: () => show(true) }, t('me.change'));
  line.append(edit);
  /** @param {boolean} editing */
  function show(editing) {
    form.hidden = !editing;
    edit.hidden = editing;
    error.hidden = true;
    if (editing) {
      input.value = name.textContent || '';
      input.focus();
      input.select();
    } else edit.focus();
  }
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const me = await setName(input.value);
      name.textContent = me.name;
      show(false);
      toast(t('me.saved', { name: me.name }));
    } catch (err) {
      error.hidden = false;
      error.textContent = errorText(/** @type {any} */ (err));
      input.focus();
    }
  });
  getMe().then((me) => { name.textContent = me.name; }, () => { name.textContent = '?'; });
  return h('div', { class: 'my-name', id: 'my-name-card' }, line, form);
}
