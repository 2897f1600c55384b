//! What a reader is told about an article besides its text — when it was published, how long it
//! takes to read, who wrote it — and the order articles are listed in. Pure functions over bundle
//! and API records, so the server's render and the browser's give the same text (no `Intl` dates:
//! the server's engine has none, and a browser would load its ICU data on a public page).
import { filesOf, fileUrl, tr, type Rec } from "@/site/content";
import { richOf } from "@/site/rich-text";

/** Words a minute, per language (Russian words are longer; common estimates are 180 and 220). */
const WORDS_PER_MINUTE: Record<string, number> = { ru: 180, en: 220 };
const DEFAULT_WPM = 200;

/** The plain text of a rich-text document (Tiptap JSON), a plain string, or anything else (""). */
export function plainText(v: unknown): string {
  if (typeof v === "string") return v;
  if (!v || typeof v !== "object") return "";
  const n = v as { text?: unknown; content?: unknown };
  const own = typeof n.text === "string" ? n.text : "";
  const kids = Array.isArray(n.content) ? n.content.map(plainText) : [];
  return [own, ...kids].filter(Boolean).join(" ");
}

/** How many words `text` has (runs holding a letter or a digit). */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/** Minutes to read an article's body in `lang`, rounded up, at least 1. */
export function readingMinutes(article: Rec, lang: string): number {
  const words = wordCount([tr(article.subtitle, lang), plainText(richOf(article.description, lang))].join(" "));
  return Math.max(1, Math.ceil(words / (WORDS_PER_MINUTE[lang] ?? DEFAULT_WPM)));
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Milliseconds since the epoch of an ISO timestamp (`2026-11-29T04:23:32.765322Z`), or null. Parsed
 * here, not by `Date.parse`: the server's engine rejects the microseconds the server writes, and
 * the page it renders must say what the browser's says.
 */
export function parseTime(v: unknown): number | null {
  const m = typeof v === "string" ? ISO.exec(v.trim()) : null;
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", sec = "0", frac = "", zone = "Z"] = m;
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(frac.slice(0, 3).padEnd(3, "0")));
  if (zone !== "Z") {
    const z = /([+-])(\d{2}):?(\d{2})/.exec(zone);
    if (z) t -= (z[1] === "-" ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
  }
  return Number.isNaN(t) ? null : t;
}

const time = parseTime;

/** When a record with a UUID v7 id (the store's ids) was created: the id's first 48 bits are
 * its creation time in milliseconds. Null for another kind of id. */
export function idTime(id: unknown): number | null {
  const m = typeof id === "string" ? /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-/i.exec(id) : null;
  return m ? parseInt(`${m[1]}${m[2]}`, 16) : null;
}

/**
 * When an article was published: its `publishAt` (set when scheduled, or backdated by an editor),
 * else when it was created (published at once) — its `createdAt`, or, where the page embeds its
 * bundle without timestamps, the creation time its id carries. ISO text, or null.
 */
export function publishedAt(article: Rec): string | null {
  for (const v of [article.publishAt, article.createdAt]) if (time(v) !== null) return v as string;
  const t = idTime(article.id);
  return t === null ? null : new Date(t).toISOString();
}

const MONTHS: Record<string, readonly string[]> = {
  ru: ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"],
  en: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
};

/** A date as readers write it: `29 ноября 2026`, `29 November 2026`. The day is the UTC one, so
 * the server's page and the browser's hydration agree wherever the reader is. */
export function formatDate(iso: string, lang: string): string {
  const t = parseTime(iso);
  if (t === null) return "";
  const d = new Date(t);
  const months = MONTHS[lang] ?? MONTHS.en ?? [];
  return `${d.getUTCDate()} ${months[d.getUTCMonth()] ?? ""} ${d.getUTCFullYear()}`;
}

/** The article's author as a name, when the record has one (a text or a translations map);
 * never an id. Articles have no author field yet: this shows one once the server adds it. */
export function authorOf(article: Rec, lang: string): string {
  const a = article.author;
  if (a && typeof a === "object" && "title" in a) return tr((a as Rec).title, lang).trim();
  return tr(a, lang).trim();
}

/** Newest first by `publishedAt`; records without a date go last; ties keep their order. */
export function newestFirst<T extends Rec>(items: readonly T[]): T[] {
  const at = (r: Rec) => time(publishedAt(r)) ?? Number.NEGATIVE_INFINITY;
  return items
    .map((r, i) => [r, i] as const)
    .sort(([a, i], [b, j]) => at(b) - at(a) || i - j)
    .map(([r]) => r);
}

/** Whether a page in `lang` shows an article a title (its own language's, else the one it has): one
 * without has nothing a reader could follow a link by (an imported draft titled only for the
 * admin), so lists and "read next" leave it out. */
export function titledIn(lang: string): (article: Rec) => boolean {
  return (a) => tr(a.title, lang).trim() !== "";
}

/**
 * The articles linked through relation rows (an editor's pick, a category's articles), in order:
 * the rows' `orderIndex` first (an editor's order), newest first among equal indexes (all 0 unless
 * someone ordered them).
 */
export function orderedArticles(rows: readonly Rec[]): Rec[] {
  const index = (r: Rec) => (typeof r.orderIndex === "number" ? r.orderIndex : 0);
  const byDate = new Map(newestFirst(rows.map((r) => r._to as Rec)).map((a, i) => [a, i]));
  return rows
    .filter((r) => r._to)
    .map((r) => [index(r), byDate.get(r._to as Rec) ?? 0, r._to as Rec] as const)
    .sort(([a, i], [b, j]) => a - b || i - j)
    .map(([, , a]) => a);
}

/** The articles a list widget shows: those an editor linked to it, in their order (see
 * `orderedArticles`), else every article (which the server reads in creation order) newest first. */
export function listedArticles(widget: Rec): Rec[] {
  const rows = widget._rel?.["widgets-to-articles"] ?? [];
  return rows.length ? orderedArticles(rows) : newestFirst(widget._list ?? []);
}

/** How an article's card is laid out: with its cover on top, or compact (text only, as tall as
 * its text) when it has no image to show — never a blank picture box. */
export function cardLayout(article: Rec): "cover" | "compact" {
  return fileUrl(filesOf(article)[0]) ? "cover" : "compact";
}

/**
 * Up to `n` articles to read after `current`: those sharing a category with it (newest first),
 * then the newest others; never `current` itself, never one twice.
 */
export function relatedArticles(current: string, sameCategory: readonly Rec[], newest: readonly Rec[], n = 3, shown: (r: Rec) => boolean = () => true): Rec[] {
  const out: Rec[] = [];
  const seen = new Set([current]);
  for (const r of [...newestFirst(sameCategory), ...newestFirst(newest)]) {
    if (out.length >= n) break;
    if (seen.has(r.id) || !shown(r)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out;
}
