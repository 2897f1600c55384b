//! The admin's language: the one its person last chose, kept in the browser (across reloads) —
//! else the site's default. The admin has no language in its address (`/admin/…`), so without
//! this every reload fell back to English.
import { DEFAULT_LANGUAGE, isLanguage, type Language } from "@/i18n";
import { signInHref } from "@/site/link";

const KEY = "stoa.admin.language";

/** The language the admin was last used in here, else the site's default. */
export function adminLanguage(): Language {
  try {
    const kept = globalThis.localStorage?.getItem(KEY) ?? undefined;
    return isLanguage(kept) ? kept : DEFAULT_LANGUAGE;
  } catch {
    // Storage refused (a private window's policy): the default.
    return DEFAULT_LANGUAGE;
  }
}

/** Keeps `lang` as the admin's language in this browser. */
export function rememberAdminLanguage(lang: string): void {
  if (!isLanguage(lang)) return;
  try {
    globalThis.localStorage?.setItem(KEY, lang);
  } catch {
    // Not kept; the choice still holds until the page is left.
  }
}

/** Where someone signed out is sent from `path` (an admin address): the sign-in, in the admin's
 * language, coming back to `path` after it. */
export function adminSignInUrl(path: string, lang: Language = adminLanguage()): string {
  return signInHref(lang, path);
}
