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

/** Scrolls to the element with id `id` and focuses it (`focusTarget`); false when there is none. */
export function goToAnchor(id: string): boolean {
  const el = document.getElementById(id);
  if (!el) return false;
  el.scrollIntoView();
  focusTarget(el);
  return true;
}
