// A catalogue that loads with a lazy chunk (the admin's, the account screens'), not with the
// public site's first-load JavaScript: keys under its prefix come from it, every other key from
// the app's catalogues, in the app's current language.
import i18n, { useTranslation } from "@/i18n";
import { type Catalogue, type TFunction, Translator } from "@/lib/translate";

export function chunkCatalogue(prefix: string, en: Catalogue, ru: Catalogue) {
  const own = new Translator({ en, ru }, "en", "en");
  const bound = new Map<string, TFunction>();
  /** `t` in `lang` (the same function for the same language, so what is built from it is
   * rebuilt only when the language changes). */
  function at(lang: string): TFunction {
    let t = bound.get(lang);
    if (!t) {
      const mine = own.getFixedT(lang);
      const app = i18n.getFixedT(lang);
      t = (key, options) => (key.startsWith(`${prefix}.`) ? mine(key, options) : app(key, options));
      bound.set(lang, t);
    }
    return t;
  }
  /** `at` in the app's current language (re-renders when it changes). */
  function useT(): TFunction {
    const { i18n: app } = useTranslation();
    return at(app.language);
  }
  return { at, useT };
}
