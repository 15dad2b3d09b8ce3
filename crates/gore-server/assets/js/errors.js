// @ts-check
// The server's errors said plainly, in the page's language: by the
// answer's `reason` (with its `params`) when the page has words for it,
// else by its `code`; the server's English message only for what this
// page does not know (docs/API.md lists codes and reasons).

import { has, t } from './i18n.js';

/** The codes said by one sentence whatever the reason. */
const CODES = {
  busy: 'error.busy',
  unavailable: 'error.unavailable',
  draining: 'error.draining',
  claimed: 'error.claimed',
  wrong_host: 'error.wrongHost',
  rate_limited: 'error.rateLimited',
  too_many_aborts: 'error.tooManyAborts',
  network: 'error.network',
};

/**
 * What to tell a person about an error answer.
 * @param {{code?: string, message?: string, reason?: string, params?: Record<string, string|number>}|null|undefined} err
 */
export function errorText(err) {
  if (!err) return '';
  const reason = err.reason && `error.reason.${err.reason}`;
  if (reason && has(reason)) {
    /** @type {Record<string, string|number>} */
    const vars = { ...(err.params || {}) };
    // A GPN part is named in the page's words.
    if (typeof vars.field === 'string' && has(`error.gpnField.${vars.field}`)) vars.field = t(`error.gpnField.${vars.field}`);
    return t(reason, vars);
  }
  const code = err.code;
  const key = code && /** @type {Record<string, string>} */ (CODES)[code];
  if (key) return t(key);
  return err.message || (code ? String(code) : '');
}
