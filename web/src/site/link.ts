import { LANGUAGES } from "@/i18n";
import { useParams } from "react-router";

/**
 * The link rule of the spec: a target containing a colon (`mailto:`, `https://…`) or equal to a
 * language root stays as it is; an empty target becomes `/`; anything else gets the language
 * prefix. `localize("/blog", "ru", ["en", "ru"])` → `/ru/blog`.
 */
export function localize(target: string | null | undefined, lang: string, languages: readonly string[]): string {
  const t = (target ?? "").trim();
  if (t === "") return "/";
  if (t.includes(":")) return t;
  if (languages.some((l) => t === `/${l}` || t === `/${l}/`)) return t;
  if (t.startsWith("#") || t.startsWith("?")) return t;
  const path = t.startsWith("/") ? t : `/${t}`;
  return `/${lang}${path}`;
}

/** Shortens a wallet address to its first 6 and last 4 characters. */
export function shortAddress(address: string): string {
  return address.length <= 10 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** `localize` with the site's languages: the link a page in `lang` gives for `target`. */
export function siteLink(target: string | null | undefined, lang: string): string {
  return localize(target, lang, LANGUAGES);
}

/** Where the account's sign-in screens are (`modules/rbac/site-part.tsx`). */
export const AUTH_PATH = "/rbac/subject/authentication";

/** The sign-in screen in `lang`, coming back to `back` (a path with its query) afterwards. */
export function signInHref(lang: string, back: string): string {
  return `${siteLink(`${AUTH_PATH}/select-method`, lang)}?redirect=${encodeURIComponent(back)}`;
}

/** `siteLink` in the language of the current route. */
export function useLink() {
  const { lang = "ru" } = useParams();
  return (target: string) => siteLink(target, lang);
}
