// @ts-check
// The server's error codes that need more than its one-line message: said
// plainly, in the page's language (docs/API.md lists the codes).

import { t } from './i18n.js';

/**
 * What to tell a person about an error answer; the server's own message for
 * the codes that have no better sentence here.
 * @param {{code?: string, message?: string}|null|undefined} err
 */
export function errorText(err) {
  const code = err && err.code;
  if (code === 'busy') return t('error.busy');
  if (code === 'unavailable') return t('error.unavailable');
  if (code === 'claimed') return t('error.claimed');
  if (code === 'wrong_host') return t('error.wrongHost');
  if (code === 'rate_limited') return t('error.rateLimited');
  if (code === 'too_many_aborts') return t('error.tooManyAborts');
  if (code === 'network') return t('error.network');
  return (err && err.message) || (code ? String(code) : '');
}
