// @ts-check
// The analysis board (being written).

import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * @param {HTMLElement} main
 */
export function analysisPage(main) {
  return {
    render() {
      main.textContent = '';
      document.title = `Goré · ${t('nav.analysis')}`;
      main.append(h('h1', {}, t('nav.analysis')));
    },
  };
}
