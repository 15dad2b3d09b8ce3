// @ts-check
// The lessons of a guided first game (being written).

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * @param {HTMLElement} main
 */
export function learnPage(main) {
  return {
    render() {
      main.textContent = '';
      document.title = `Goré · ${t('nav.learn')}`;
      main.append(h('h1', {}, t('nav.learn')));
    },
  };
}
