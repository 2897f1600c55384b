// Reading `platform.audit` entries: the field diff (`changes: {field: {before, after}}`, values in
// wire form) as rows to show, one per field and, for translations, one per language; secret
// fields (`redacted`) as names only; who did it (`actor`) in words.

/** One line of a diff: a field (and the language of a translation), its value before and after. */
export interface DiffRow {
  field: string;
  lang?: string;
  before: string;
  after: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Whether `v` is a translations value: an object whose keys are all language codes. */
export function isTranslations(v: unknown, languages: readonly string[]): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  return Object.keys(v).every((k) => languages.includes(k));
}

/** The text of a TipTap (rich text) document, paragraphs on lines of their own. */
function richText(doc: Record<string, unknown>): string {
  const out: string[] = [];
  const walk = (n: unknown) => {
    if (!isObject(n)) return;
    if (typeof n.text === "string") out.push(n.text);
    if (Array.isArray(n.content)) {
      n.content.forEach(walk);
      if (n.type === "paragraph" || n.type === "heading" || n.type === "listItem") out.push("\n");
    }
  };
  walk(doc);
  return out.join("").replace(/\n+$/, "").replace(/\n{2,}/g, "\n");
}

/** A value as the diff shows it: text as it is, a rich-text document as its text, the rest as JSON. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (isObject(v) && v.type === "doc") return richText(v);
  return JSON.stringify(v);
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The rows of an entry's `changes`: each changed field once, a translations field once per
 * language whose text changed (empty `{}` and `null` read as no text). Fields keep the entry's
 * order; languages follow `languages`, then any other. `kindOf` (the entity's field kinds, when
 * it is still declared) says which fields are translations; without it, an object keyed by
 * languages only is taken for one.
 */
export function diffRows(changes: unknown, languages: readonly string[], kindOf?: (field: string) => string | undefined): DiffRow[] {
  if (!isObject(changes)) return [];
  const rows: DiffRow[] = [];
  for (const [field, change] of Object.entries(changes)) {
    if (!isObject(change)) continue;
    const { before, after } = change;
    if (same(before, after)) continue;
    const b = (before ?? {}) as Record<string, unknown>;
    const a = (after ?? {}) as Record<string, unknown>;
    const kind = kindOf?.(field);
    const translations =
      kind !== undefined
        ? kind === "translations" && isObject(b) && isObject(a)
        : (isObject(before) || isObject(after)) && isTranslations(b, languages) && isTranslations(a, languages) && (Object.keys(a).length > 0 || Object.keys(b).length > 0);
    if (translations) {
      const langs = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort((x, y) => order(x, languages) - order(y, languages) || x.localeCompare(y));
      for (const lang of langs) {
        if (same(b[lang], a[lang])) continue;
        const row = { field, lang, before: showValue(b[lang]), after: showValue(a[lang]) };
        // An empty rich-text document where there was none says nothing.
        if (row.before || row.after) rows.push(row);
      }
      continue;
    }
    rows.push({ field, before: showValue(before), after: showValue(after) });
  }
  return rows;
}

function order(lang: string, languages: readonly string[]): number {
  const i = languages.indexOf(lang);
  return i < 0 ? languages.length : i;
}

/** The names of the secret fields an entry says changed (`redacted`), never their values. */
export function redactedFields(redacted: unknown): string[] {
  return Array.isArray(redacted) ? redacted.filter((x): x is string => typeof x === "string") : [];
}

/** The values longer than this are cut in the diff, with a button to show all. */
export const SHORT = 160;

/** `text` cut to `max` characters (at a word when one ends near), and whether it was cut. */
export function truncate(text: string, max = SHORT): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const head = text.slice(0, max);
  const space = head.lastIndexOf(" ");
  return { text: `${(space > max * 0.7 ? head.slice(0, space) : head).trimEnd()}…`, cut: true };
}

/** Who wrote an entry: a person (by subject id), the secret key, a job or the system. */
export type Actor = { kind: "subject"; id: string } | { kind: "secret-key" } | { kind: "job"; name: string } | { kind: "system"; raw: string };

export function parseActor(actor: string): Actor {
  if (actor.startsWith("subject:")) return { kind: "subject", id: actor.slice("subject:".length) };
  if (actor === "secret-key") return { kind: "secret-key" };
  if (actor.startsWith("job:")) return { kind: "job", name: actor.slice("job:".length) };
  return { kind: "system", raw: actor };
}

/** The filter of the audit list (`filters` JSON of the generic find route). */
export interface AuditFilter {
  subject?: string;
  actor?: string;
  entity?: string;
  record?: string;
  action?: string;
  /** ISO timestamps. */
  from?: string;
  to?: string;
}

export function auditFilters(f: AuditFilter): { column: string; method: string; value: string }[] {
  const out: { column: string; method: string; value: string }[] = [];
  if (f.subject) out.push({ column: "subjectId", method: "eq", value: f.subject });
  if (f.actor) out.push({ column: "actor", method: "eq", value: f.actor });
  if (f.entity) out.push({ column: "entity", method: "eq", value: f.entity });
  if (f.record) out.push({ column: "recordId", method: "eq", value: f.record });
  if (f.action) out.push({ column: "action", method: "eq", value: f.action });
  if (f.from) out.push({ column: "createdAt", method: "gte", value: f.from });
  if (f.to) out.push({ column: "createdAt", method: "lte", value: f.to });
  return out;
}

/** A `datetime-local` input's value (local time, no zone) as an ISO instant, or undefined. */
export function localToIso(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** An ISO instant as a `datetime-local` input's value in the reader's time zone. */
export function isoToLocal(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
