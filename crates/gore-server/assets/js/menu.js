// @ts-check
// The header's menu button: where the links do not fit on one row (a
// phone, upright or on its side: the stylesheet shows the button then),
// it opens them as a list below the header. It says whether it is open
// (aria-expanded); Escape, a click outside or choosing a link closes it,
// Escape giving the focus back to the button.

/** Wires the menu button of the page's header (if it has one). */
export function initMenu() {
  const header = /** @type {HTMLElement|null} */ (document.querySelector('.site-header'));
  const button = document.getElementById('menu-button');
  const nav = document.getElementById('site-nav');
  if (!header || !button || !nav) return;
  /** @param {boolean} open */
  const set = (open) => {
    header.classList.toggle('menu-open', open);
    button.setAttribute('aria-expanded', String(open));
  };
  const isOpen = () => button.getAttribute('aria-expanded') === 'true';
  button.addEventListener('click', () => {
    const open = !isOpen();
    set(open);
    if (open) {
      const first = /** @type {HTMLElement|null} */ (nav.querySelector('a'));
      if (first) first.focus();
    }
  });
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !isOpen()) return;
    set(false);
    button.focus();
  });
  document.addEventListener('click', (e) => {
    const target = /** @type {Node|null} */ (e.target);
    if (isOpen() && target && !header.contains(target)) set(false);
  });
  nav.addEventListener('click', (e) => {
    if (/** @type {HTMLElement} */ (e.target).closest('a')) set(false);
  });
  // Tabbing out of the open list closes it (it would cover the page).
  header.addEventListener('focusout', (e) => {
    const next = /** @type {Node|null} */ (e.relatedTarget);
    if (isOpen() && next && !header.contains(next)) set(false);
  });
}
