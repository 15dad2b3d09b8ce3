// @ts-check
// Puzzles (being written).

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * @param {HTMLElement} main
 */
export function puzzlesPage(main) {
  return {
    render() {
      main.textContent = '';
      document.title = `Goré · ${t('nav.puzzles')}`;
      main.append(h('h1', {}, t('nav.puzzles')));
    },
  };
}
