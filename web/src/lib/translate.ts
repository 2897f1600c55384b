import { useSyncExternalStore } from "react";

/**
 * The UI's translations: the part of i18next/react-i18next the app uses, small enough for the
 * public entry (i18next alone was 14 KB of its gzip). Keys are dot paths into a catalogue;
 * `{{name}}` is replaced by the option `name` (values are not escaped: React escapes them);
 * `count` picks `key_<plural category>` by the language's plural rules (`key_zero` first for 0);
 * a key missing in the language comes from the fallback language, then `defaultValue`, then the
 * key itself.
 */

export interface Catalogue {
  [key: string]: string | Catalogue;
}
export interface TOptions {
  count?: number;
  defaultValue?: string;
  [name: string]: unknown;
}
export type TFunction = (key: string, options?: TOptions) => string;

function lookup(catalogue: Catalogue | undefined, key: string): string | undefined {
  let at: string | Catalogue | undefined = catalogue;
  for (const part of key.split(".")) {
    if (at === undefined || typeof at === "string") return undefined;
    at = at[part];
  }
  return typeof at === "string" ? at : undefined;
}

function interpolate(text: string, options: TOptions | undefined): string {
  if (!options) return text;
  return text.replace(/\{\{\s*([^}\s]+)\s*\}\}/g, (whole, name: string) => (options[name] === undefined ? whole : String(options[name])));
}

export class Translator {
  private readonly listeners = new Set<() => void>();
  private readonly bound = new Map<string, TFunction>();
  private readonly plurals = new Map<string, Intl.PluralRules>();

  constructor(
    private readonly resources: Record<string, Catalogue>,
    /** The current language. */
    public language: string,
    private readonly fallbackLanguage: string,
  ) {}

  private resolve(lang: string, key: string, options: TOptions | undefined): string | undefined {
    const catalogue = this.resources[lang];
    const count = options?.count;
    if (typeof count === "number") {
      let rules = this.plurals.get(lang);
      if (!rules) this.plurals.set(lang, (rules = new Intl.PluralRules(lang)));
      const found = (count === 0 ? lookup(catalogue, `${key}_zero`) : undefined) ?? lookup(catalogue, `${key}_${rules.select(count)}`);
      if (found !== undefined) return found;
    }
    return lookup(catalogue, key);
  }

  /** `t` of one language (the same function each time: effects may depend on it). */
  getFixedT(lang: string): TFunction {
    let t = this.bound.get(lang);
    if (!t) {
      t = (key, options) => {
        const text = this.resolve(lang, key, options) ?? this.resolve(this.fallbackLanguage, key, options) ?? options?.defaultValue ?? key;
        return interpolate(text, options);
      };
      this.bound.set(lang, t);
    }
    return t;
  }

  /** Translates in the current language. */
  t: TFunction = (key, options) => this.getFixedT(this.language)(key, options);

  changeLanguage(lang: string): Promise<TFunction> {
    if (lang !== this.language) {
      this.language = lang;
      for (const l of this.listeners) l();
    }
    return Promise.resolve(this.getFixedT(lang));
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
}

/** `useTranslation()` of a translator: `t` in the current language; re-renders when it changes. */
export function translationHook(i18n: Translator) {
  const current = () => i18n.language;
  return function useTranslation(): { t: TFunction; i18n: Translator } {
    const lang = useSyncExternalStore(i18n.subscribe, current, current);
    return { t: i18n.getFixedT(lang), i18n };
  };
}
