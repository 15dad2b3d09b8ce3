// @ts-check
// A game's review (being written).

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * @param {HTMLElement} main
 * @param {string | null} id the game reviewed, or null for an uploaded record
 */
export function reviewPage(main, id) {
  void id;
  return {
    render() {
      main.textContent = '';
      document.title = `Goré · ${t('nav.analysis')}`;
      main.append(h('h1', {}, t('nav.analysis')));
    },
  };
}
