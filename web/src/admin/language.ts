//! The admin's language: the one its person last chose, kept in the browser (across reloads) —
//! else the site's default. The admin has no language in its address (`/admin/…`), so without
//! this every reload fell back to English.
import { DEFAULT_LANGUAGE, isLanguage, type Language } from "@/i18n";
import { signInHref } from "@/site/link";

const KEY = "stoa.admin.language";

/** The language chosen in this browser, if any. */
export function keptAdminLanguage(): Language | undefined {
  try {
    const kept = globalThis.localStorage?.getItem(KEY) ?? undefined;
    return isLanguage(kept) ? kept : undefined;
  } catch {
    // Storage refused (a private window's policy).
    return undefined;
  }
}

/** The language the admin was last used in here, else the account's (`account`: the signed-in
 * person's language, kept with the account, so a new device opens in it), else the site's default. */
export function adminLanguage(account?: string | null): Language {
  return keptAdminLanguage() ?? (isLanguage(account ?? undefined) ? (account as Language) : DEFAULT_LANGUAGE);
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
