import { describe, expect, it } from "vitest";
import { NumberFormat, PluralRules } from "./intl";

// The engine's Intl must give what the browser's gives (hydration compares text).
const numbers = [0, 1, -1, 12, 1234, 1234.5, 1234567.891, 0.0001234, 0.125, 1.005, 2.675, 999.9996, -0.4, 99999.95, 123456789012];
const options: Intl.NumberFormatOptions[] = [
  {},
  { maximumFractionDigits: 2 },
  { maximumFractionDigits: 0 },
  { style: "percent", maximumFractionDigits: 1 },
  { style: "percent", maximumFractionDigits: 2 },
  { style: "unit", unit: "kilobyte", unitDisplay: "short", maximumFractionDigits: 1 },
  { style: "unit", unit: "byte", unitDisplay: "short", maximumFractionDigits: 1 },
  { style: "unit", unit: "megabyte", unitDisplay: "short", maximumFractionDigits: 1 },
];

describe("the server engine's Intl", () => {
  for (const locale of ["ru", "ru-RU", "en", "en-US"]) {
    it(`formats numbers as the platform does in ${locale}`, () => {
      for (const o of options)
        for (const n of numbers) {
          const mine = new NumberFormat(locale, o as never).format(n);
          expect(mine, `${locale} ${JSON.stringify(o)} ${n}`).toBe(new Intl.NumberFormat(locale, o).format(n));
        }
    });
    it(`selects plural categories as the platform does in ${locale}`, () => {
      for (const type of ["cardinal", "ordinal"] as const)
        for (let n = 0; n < 250; n++) {
          for (const v of [n, n + 0.5]) {
            expect(new PluralRules(locale, { type }).select(v), `${locale} ${type} ${v}`).toBe(new Intl.PluralRules(locale, { type }).select(v));
          }
        }
    });
  }
});
