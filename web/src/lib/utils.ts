import { formatNumber } from "./number";
/** A file size for people: `512 B`, `12.3 kB`, `4.5 MB` in the reader's language. */
export function formatBytes(bytes: number, lang: string): string {
  const [unit, value] = bytes >= 1_000_000 ? (["megabyte", bytes / 1_000_000] as const) : bytes >= 1_000 ? (["kilobyte", bytes / 1_000] as const) : (["byte", bytes] as const);
  return formatNumber(lang, value, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 1 });
}
