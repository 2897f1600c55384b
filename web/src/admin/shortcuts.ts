// The admin's keyboard shortcuts: `/` focuses the table's search, `n` opens New, Ctrl/Cmd+S
// saves the open form, `?` lists them. Letters never fire while the admin types in a field (only
// Ctrl/Cmd+S does). Keys are read by their position too (`code`), so they work in a Russian layout.
import { useEffect } from "react";

export type Shortcut = "search" | "new" | "save" | "help";

/** The shortcuts in the order the help lists them, with the keys it shows. */
export const SHORTCUTS: { id: Shortcut; keys: string[] }[] = [
  { id: "search", keys: ["/"] },
  { id: "new", keys: ["n"] },
  { id: "save", keys: ["Ctrl", "S"] },
  { id: "help", keys: ["?"] },
];

type Key = Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "target">;

/** Is the event's target a place where keys type text (an input, a text area, a select, an editor)? */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== "function") return false;
  if (el.isContentEditable || el.closest("[contenteditable=''], [contenteditable='true']")) return true;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (el as HTMLInputElement).type;
  return !["checkbox", "radio", "button", "submit", "reset", "file", "range", "color"].includes(type);
}

/** The shortcut a key press means, if any. */
export function shortcutOf(e: Key): Shortcut | null {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key.toLowerCase() === "s" || e.code === "KeyS")) return "save";
  if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return null;
  if (e.key === "?" || (e.code === "Slash" && e.shiftKey)) return "help";
  if (e.key === "/" || (e.code === "Slash" && !e.shiftKey)) return "search";
  if (!e.shiftKey && (e.key === "n" || e.code === "KeyN")) return "new";
  return null;
}

const openDialogs = (doc: Document) => [...doc.querySelectorAll<HTMLElement>("[role=dialog], [role=alertdialog]")];

/**
 * Does what a shortcut means on the page; false when there is nothing to do it on. Search and
 * New act on the page's main table (never behind an open dialog); Save submits the form of the
 * topmost dialog, or else the page's own form.
 */
export function runShortcut(s: Shortcut, doc: Document = document): boolean {
  const dialogs = openDialogs(doc);
  if (s === "search" || s === "new") {
    if (dialogs.length) return false;
    // The first one shown (a tab not chosen keeps its controls, hidden).
    const el = [...doc.querySelectorAll<HTMLElement>(`main [data-shortcut="${s}"]`)].find((x) => !x.closest("[hidden], [data-state='inactive']"));
    if (!el) return false;
    if (s === "search") {
      el.focus();
      (el as HTMLInputElement).select?.();
    } else el.click();
    return true;
  }
  if (s === "save") {
    const scope = dialogs.at(-1) ?? doc.querySelector("main");
    const form = scope?.querySelector<HTMLFormElement>("form");
    if (!form) return false;
    form.requestSubmit();
    return true;
  }
  return false;
}

/** Listens for the shortcuts on the whole page while the admin is shown. */
export function useAdminShortcuts(onHelp: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat) return;
      const s = shortcutOf(e);
      if (!s) return;
      if (s === "help") {
        e.preventDefault();
        onHelp();
        return;
      }
      // Ctrl+S never saves the page as HTML here, whether or not a form is open.
      if (runShortcut(s) || s === "save") e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onHelp]);
}
