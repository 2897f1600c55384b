import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import { en } from "./en";
import { ru } from "./ru";
import { boot } from "@/lib/boot";

export const LANGUAGES = ["ru", "en"] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(s: string | undefined): s is Language {
  return (LANGUAGES as readonly string[]).includes(s ?? "");
}

/** The site's default language (server configuration; the demo is Russian-first). */
export const DEFAULT_LANGUAGE: Language = isLanguage(boot?.site.defaultLanguage) ? boot.site.defaultLanguage : "ru";

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, ru: { translation: ru } },
  // The page's language from the first render on, so hydration matches the server's HTML.
  lng: isLanguage(boot?.lang) ? boot.lang : "en",
  initAsync: false,
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

export default i18next;
