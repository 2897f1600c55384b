/**
 * The part of `Intl` the public site uses, for the server's engine (QuickJS has no `Intl`;
 * `ssr/env.ts` installs it there): numbers (decimal, percent, the byte units) and plural rules in
 * Russian and English, written to give exactly what browsers give (CLDR), so hydration finds the
 * same text. Dates are formatted only in screens rendered in the browser. Public pages format their
 * numbers with it in the browser too (`lib/number.ts`).
 */

export type NumberOptions = {
  style?: "decimal" | "percent" | "unit" | "currency";
  unit?: string;
  unitDisplay?: string;
  maximumFractionDigits?: number;
  minimumFractionDigits?: number;
};

const UNITS: Record<string, { ru: string; en: string }> = {
  byte: { ru: "Б", en: "byte" },
  kilobyte: { ru: "кБ", en: "kB" },
  megabyte: { ru: "МБ", en: "MB" },
  gigabyte: { ru: "ГБ", en: "GB" },
  kilogram: { ru: "кг", en: "kg" },
  gram: { ru: "г", en: "g" },
  kilometer: { ru: "км", en: "km" },
  meter: { ru: "м", en: "m" },
};

/** Rounds a non-negative decimal string half away from zero to `digits` places, as ICU does. */
export function roundDecimal(abs: number, digits: number): string {
  let s = String(abs);
  if (/e/i.test(s)) s = abs.toFixed(Math.min(20, Math.max(digits, 0)));
  const [int = "0", frac = ""] = s.split(".");
  if (frac.length <= digits) return frac ? `${int}.${frac}` : int;
  const keep = `${int}${frac.slice(0, digits)}`;
  const up = frac.charCodeAt(digits) >= 53; // '5'
  let digitsArr = keep.split("").map(Number);
  if (up) {
    let i = digitsArr.length - 1;
    while (i >= 0) {
      if (digitsArr[i] === 9) {
        digitsArr[i] = 0;
        i--;
      } else {
        digitsArr[i] = (digitsArr[i] ?? 0) + 1;
        break;
      }
    }
    if (i < 0) digitsArr = [1, ...digitsArr];
  }
  const all = digitsArr.join("");
  const intLen = all.length - digits;
  const i2 = all.slice(0, intLen) || "0";
  const f2 = all.slice(intLen);
  return f2 ? `${i2}.${f2}` : i2;
}

export class NumberFormat {
  private readonly ru: boolean;
  private readonly o: NumberOptions;
  private readonly locale: string;
  constructor(locale?: string | string[], options: NumberOptions = {}) {
    const l = (Array.isArray(locale) ? locale[0] : locale) ?? "en";
    this.ru = /^ru\b/i.test(l);
    this.locale = this.ru ? "ru" : "en";
    this.o = options;
  }
  format(value: number | bigint): string {
    const n = Number(value);
    if (Number.isNaN(n)) return "NaN";
    if (!Number.isFinite(n)) return n < 0 ? "-∞" : "∞";
    const o = this.o;
    const v = o.style === "percent" ? n * 100 : n;
    const minF = o.minimumFractionDigits ?? 0;
    const maxF = Math.max(minF, o.maximumFractionDigits ?? (o.style === "percent" ? 0 : 3));
    let [int = "0", frac = ""] = roundDecimal(Math.abs(v), maxF).split(".");
    frac = frac.replace(/0+$/, "");
    while (frac.length < minF) frac += "0";
    const group = this.ru ? "\u00a0" : ",";
    const grouped = int.length > 3 ? int.replace(/\B(?=(\d{3})+(?!\d))/g, group) : int;
    let body = frac ? `${grouped}${this.ru ? "," : "."}${frac}` : grouped;
    if (v < 0 && /[1-9]/.test(body)) body = `-${body}`;
    else if (Object.is(v, -0) || (v < 0 && !/[1-9]/.test(body))) body = `-${body}`;
    if (o.style === "percent") return this.ru ? `${body}\u00a0%` : `${body}%`;
    if (o.style === "unit" && o.unit) {
      const u = UNITS[o.unit];
      const name = u ? (this.ru ? u.ru : u.en) : o.unit;
      return `${body} ${name}`;
    }
    return body;
  }
  resolvedOptions() {
    return { locale: this.locale, numberingSystem: "latn", ...this.o };
  }
}

type Category = "zero" | "one" | "two" | "few" | "many" | "other";

export class PluralRules {
  private readonly ru: boolean;
  private readonly ordinal: boolean;
  constructor(locale?: string | string[], options: { type?: "cardinal" | "ordinal" } = {}) {
    const l = (Array.isArray(locale) ? locale[0] : locale) ?? "en";
    this.ru = /^ru\b/i.test(l);
    this.ordinal = options.type === "ordinal";
  }
  select(value: number): Category {
    const n = Math.abs(Number(value));
    const int = Number.isInteger(n);
    if (this.ru) {
      if (this.ordinal || !int) return "other";
      const m10 = n % 10;
      const m100 = n % 100;
      if (m10 === 1 && m100 !== 11) return "one";
      if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return "few";
      return "many";
    }
    if (this.ordinal) {
      const m10 = n % 10;
      const m100 = n % 100;
      if (m10 === 1 && m100 !== 11) return "one";
      if (m10 === 2 && m100 !== 12) return "two";
      if (m10 === 3 && m100 !== 13) return "few";
      return "other";
    }
    return n === 1 && int ? "one" : "other";
  }
  resolvedOptions() {
    const categories: Category[] = this.ru ? (this.ordinal ? ["other"] : ["one", "few", "many", "other"]) : this.ordinal ? ["one", "two", "few", "other"] : ["one", "other"];
    return { locale: this.ru ? "ru" : "en", pluralCategories: categories, type: this.ordinal ? "ordinal" : "cardinal" };
  }
}

/** Dates: an ISO form (only screens rendered in the browser show dates). */
export class DateTimeFormat {
  format(d?: Date | number): string {
    return new Date(d ?? Date.now()).toISOString();
  }
  formatToParts(d?: Date | number) {
    return [{ type: "literal", value: this.format(d) }];
  }
  resolvedOptions() {
    return { locale: "en", timeZone: "UTC" };
  }
}

export function getCanonicalLocales(l?: string | string[]): string[] {
  return l === undefined ? [] : Array.isArray(l) ? l : [l];
}
