// @ts-check
// The rules page: assets/rules/{lang}.html, with its boards drawn by the
// same renderer as the game (figures marked data-gpn, worked examples
// marked data-before / data-sown / data-after).

import { Animator, animateAction, savedSpeed } from './anim.js';
import { Board } from './board.js';
import { carried, h } from './dom.js';
import { assetUrl, lang, t } from './i18n.js';
import { parseGpn } from './gpn.js';

/** @param {HTMLElement} main */
export function rulesPage(main) {
  let seq = 0;

  async function render() {
    const my = ++seq;
    document.title = `Goré · ${t('rules.title')}`;
    let html;
    try {
      // Under the assets' version, kept for good; a first visit's page
      // carries its language's.
      const url = assetUrl(`rules/${lang()}.html`);
      const inPage = carried(new URL(url).pathname);
      if (typeof inPage === 'string') html = inPage;
      else {
        const res = await fetch(url);
        if (!res.ok) throw new Error(String(res.status));
        html = await res.text();
      }
    } catch (e) {
      html = `<p>${t('error.load')}</p>`;
    }
    if (my !== seq) return;
    main.textContent = '';
    const article = h('article', { class: 'rules-page' });
    article.innerHTML = html;
    main.append(article);
    article.querySelectorAll('[data-gpn]').forEach((fig) => figure(/** @type {HTMLElement} */ (fig)));
    article.querySelectorAll('.example[data-before]').forEach((ex) => example(/** @type {HTMLElement} */ (ex)));
  }

  /** A still board. @param {HTMLElement} fig */
  function figure(fig) {
    const p = parseGpn(fig.dataset.gpn || '');
    const board = new Board({ label: fig.dataset.label || t('board.label') });
    const offered = p.offer;
    board.render(p, { offered, origin: fig.dataset.origin || null });
    fig.prepend(board.svg);
  }

  /** A worked capture example: before, after the sowing (captures marked), and an animation. @param {HTMLElement} ex */
  function example(ex) {
    const before = parseGpn(ex.dataset.before || '');
    const sown = parseGpn(ex.dataset.sown || '');
    const after = parseGpn(ex.dataset.after || '');
    const action = ex.dataset.action || '';
    const captured = (ex.dataset.captured || '').split(',').filter(Boolean);
    const path = (ex.dataset.path || '').split(',').filter(Boolean);
    const b1 = new Board({ label: t('rules.exampleBefore') });
    const b2 = new Board({ label: t('rules.exampleAfter') });
    b1.render(before, { origin: action });
    b2.render(sown, { origin: action, captured });
    const capBefore = ex.querySelector('.cap-before');
    const capAfter = ex.querySelector('.cap-after');
    const grid = h('div', { class: 'example-boards' },
      h('figure', null, b1.svg, h('figcaption', null, capBefore ? capBefore.textContent : t('rules.exampleBefore'))),
      h('figure', null, b2.svg, h('figcaption', null, capAfter ? capAfter.textContent : t('rules.exampleAfter'))));
    if (capBefore) capBefore.remove();
    if (capAfter) capAfter.remove();
    /** @type {Animator|null} */
    let anim = null;
    const play = h('button', { type: 'button', class: 'primary', onclick: async () => {
      if (anim) { anim.skip(); return; }
      const speed = savedSpeed();
      anim = new Animator(speed === 'off' ? 'normal' : speed);
      play.textContent = t('game.skip');
      try {
        await animateAction(b1, before, after, action, captured, { path }, anim);
      } finally {
        b1.clearFx();
        b1.render(after, { origin: action, captured });
        anim = null;
        play.textContent = t('rules.playAgain');
      }
    } }, t('rules.play'));
    const reset = h('button', { type: 'button', onclick: () => { if (anim) anim.skip(); b1.render(before, { origin: action }); play.textContent = t('rules.play'); } }, t('rules.reset'));
    const heading = ex.querySelector('h3');
    if (heading) heading.after(grid);
    else ex.prepend(grid);
    grid.after(h('div', { class: 'button-row' }, play, reset));
  }

  return { render };
}
