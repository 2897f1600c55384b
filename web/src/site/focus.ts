//! Moving keyboard focus along with the view: to an in-page anchor's target, to the main content.

/** Elements the keyboard reaches by themselves (they need no `tabindex` to take focus). */
const FOCUSABLE = "a[href], button, input, select, textarea, summary, iframe, [contenteditable], [tabindex]";

/**
 * Gives `el` the focus without scrolling (the caller scrolled): an element that cannot take it
 * (a section, `main`) gets `tabindex="-1"` first, so the next Tab continues from inside it, and a
 * screen reader reads on from there.
 */
export function focusTarget(el: HTMLElement): void {
  if (!el.matches(FOCUSABLE)) {
    el.setAttribute("tabindex", "-1");
    el.setAttribute("data-focus-target", "");
  }
  el.focus({ preventScroll: true });
}

/**
 * Whether the focus is still where a navigation left it — nowhere, or on the link or button that
 * navigated — rather than put on a field by the page itself (a tier's 'Choose' focuses the
 * donation's quantity): an anchor then leaves it there.
 */
export function focusIsFree(): boolean {
  const el = document.activeElement;
  return !el || el === document.body || !el.isConnected || el.matches("a[href], button");
}

/**
 * Scrolls to the element with id `id` and focuses it (`focusTarget`), unless the page has already
 * put the focus on a field (`focusIsFree`); false when there is no such element or it left it.
 */
export function goToAnchor(id: string): boolean {
  const el = document.getElementById(id);
  if (!el || !focusIsFree()) return false;
  el.scrollIntoView();
  focusTarget(el);
  return true;
}
