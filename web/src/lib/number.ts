import { NumberFormat, type NumberOptions } from "./intl";

/**
 * A number in the reader's language (`66 713`, `1,234.5`, `12,3 кБ`), exactly as the browser's
 * `Intl.NumberFormat` writes it in ru and en (`intl.test.ts` compares the two) — without it:
 * a browser loads its ICU number data on the first `Intl.NumberFormat` of a page, 30–80 ms of main
 * thread on this machine and four times that on a phone, which public pages would pay while they
 * hydrate. Admin screens, which show dates anyway, may use `Intl` directly.
 */
export function formatNumber(lang: string, value: number, options?: NumberOptions): string {
  return new NumberFormat(lang, options).format(value);
}
