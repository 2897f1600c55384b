import { en } from "./en";
import { ru } from "./ru";
import { boot } from "@/lib/boot";
import { Translator, translationHook } from "@/lib/translate";

export type { TFunction } from "@/lib/translate";

export const LANGUAGES = ["ru", "en"] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(s: string | undefined): s is Language {
  return (LANGUAGES as readonly string[]).includes(s ?? "");
}

/** The site's default language (server configuration; the demo is Russian-first). */
export const DEFAULT_LANGUAGE: Language = isLanguage(boot?.site.defaultLanguage) ? boot.site.defaultLanguage : "ru";

const i18n = new Translator(
  { en, ru },
  // The page's language from the first render on, so hydration matches the server's HTML.
  isLanguage(boot?.lang) ? boot.lang : "en",
  "en",
);

/** `t` (and the translator) in the current language; a change of language re-renders. */
export const useTranslation = translationHook(i18n);

export default i18n;
