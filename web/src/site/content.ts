/**
 * Reading page-bundle records (see crates/site/src/bundle.rs): every record carries `_entity`;
 * linked records sit under `_rel[relation]` as relation rows with the record in `_to`; list
 * widgets have `_list`, overview widgets `_record`, products `_prices`.
 */
export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export interface Rec {
  id: string;
  _entity?: string;
  variant?: string;
  slug?: string;
  className?: string | null;
  anchor?: string | null;
  url?: string | null;
  title?: Translations | string | null;
  subtitle?: Translations | null;
  description?: Translations | string | null;
  _rel?: Record<string, Link[]>;
  _list?: Rec[];
  _record?: Rec | null;
  _prices?: Price[];
  [k: string]: unknown;
}
export interface Link extends Rec {
  orderIndex?: number | null;
  _to: Rec;
}
export type Translations = Record<string, unknown>;
export interface Price {
  amount: string;
  currency: { id: string; slug: string; symbol: string; title: string; isDefault: boolean };
}
export interface HostWidget extends Rec {
  _externals: (Rec & { module: string; widget: Rec })[];
}
export interface Layout extends Rec {
  _before: HostWidget[];
  _after: HostWidget[];
}
export interface Bundle {
  page: Rec;
  url: string;
  meta: Record<string, string>;
  /** The metadata per language (the page's over the site defaults, in that language). */
  metaByLanguage?: Record<string, Record<string, string>>;
  layouts: Layout[];
  widgets: HostWidget[];
}

/** The text of a translations map in `lang`, else in the first language that has one. */
export function tr(v: unknown, lang: string): string {
  if (typeof v === "string") return v;
  if (!v || typeof v !== "object") return "";
  const m = v as Record<string, unknown>;
  const pick = m[lang] ?? m.ru ?? m.en ?? Object.values(m)[0];
  return typeof pick === "string" ? pick : "";
}

/**
 * The `lang` attribute of a value kept as registered — a requisite in bank details, like a
 * Russian bank's or foundation's legal name — when it is in Russian on a page in another
 * language. Only for such values: any other text must come in the page's language.
 */
export function registeredLang(value: string, lang: string): "ru" | undefined {
  return lang !== "ru" && /[\u0400-\u04FF]/.test(value) ? "ru" : undefined;
}

/** Records linked below `r` through `relation`, in order; `variant` filters by the relation row's variant. */
export function linked(r: Rec | null | undefined, relation: string, variant?: string): Rec[] {
  const rows = r?._rel?.[relation] ?? [];
  return rows.filter((l) => !variant || (l.variant ?? "default") === variant).map((l) => l._to);
}

/** Every linked record below `r` whose relation name ends with `suffix` (e.g. files). */
export function linkedBySuffix(r: Rec | null | undefined, suffix: string): Rec[] {
  return Object.entries(r?._rel ?? {})
    .filter(([name]) => name.endsWith(suffix))
    .flatMap(([, rows]) => rows.map((l) => l._to));
}

/** The files linked to `r` (any `…-to-file-storage-module-files` or `widgets-to-files`). */
export function filesOf(r: Rec | null | undefined): Rec[] {
  return [...linkedBySuffix(r, "file-storage-module-files"), ...linked(r, "widgets-to-files")];
}

/** A stored file's URL: absolute URLs stay, paths are served by us. */
export function fileUrl(f: Rec | null | undefined): string {
  const p = typeof f?.file === "string" ? f.file : "";
  if (!p) return "";
  if (/^https?:\/\//.test(p) || p.startsWith("/")) return p;
  return `/files/${p}`;
}

/** A price for display: `199 ₽`. Whole amounts lose their decimals. (Orders carry currency cards, whose symbol may be missing.) */
export function formatPrice(p: { amount: string; currency: { symbol?: string | null } }, lang: string): string {
  const n = Number(p.amount);
  const amount = Number.isFinite(n) ? new Intl.NumberFormat(lang === "ru" ? "ru-RU" : "en-US", { maximumFractionDigits: 2 }).format(n) : p.amount;
  return p.currency.symbol ? `${amount} ${p.currency.symbol}` : amount;
}

const IMAGE_FILE = /\.(png|jpe?g|webp|gif|avif|svg)(\?|$)/i;

/** True for a file record that is shown as an image (by its type, else by its URL). */
function isImageFile(r: Rec): boolean {
  const url = fileUrl(r);
  if (!url || (r._entity !== undefined && r._entity !== "file-storage.file")) return false;
  return typeof r.mimeType === "string" && r.mimeType ? r.mimeType.startsWith("image/") : IMAGE_FILE.test(url);
}

/** Whether `r` or anything below it (linked records, a list's items, an overview's record) is an image file. */
export function hasImage(r: Rec | null | undefined, depth = 0): boolean {
  if (!r || typeof r !== "object" || depth > 8) return false;
  if (isImageFile(r)) return true;
  const below: (Rec | null | undefined)[] = [...Object.values(r._rel ?? {}).flatMap((links) => links.map((l) => l._to)), ...(r._list ?? []), r._record];
  return below.some((x) => hasImage(x, depth + 1));
}

/** The key (`widget-external`) of the first of `widgets` that shows an image, or null. */
export function firstImageBlock(widgets: HostWidget[]): string | null {
  for (const w of widgets) {
    for (const e of w._externals) {
      if (hasImage(e.widget)) return `${w.id}-${e.id}`;
    }
  }
  return null;
}
