import { z } from "zod";
import type { EntityMeta, FieldMeta } from "@/api/meta";
import type { TFunction } from "@/i18n";
import { recordsT } from "./records-i18n";

export type Values = Record<string, unknown>;

/** The fields an administrator edits: everything the server does not own. */
export function editableFields(e: EntityMeta): FieldMeta[] {
  return e.fields.filter((f) => !f.serverOwned && f.name !== "id");
}

/**
 * What a widget holds while its text does not parse (JSON being typed, a half-written date): the
 * form refuses to save it, instead of saving the last value that did parse.
 */
export class Unparsed {
  constructor(readonly text: string) {}
}

/** The publishing fields of an entity whose declaration has `status` draft/published/scheduled. */
export function publishing(e: EntityMeta): { status: FieldMeta; publishAt: FieldMeta | undefined } | null {
  const status = e.fields.find((f) => f.name === "status" && f.kind === "enum");
  if (!status || !["draft", "published", "scheduled"].every((v) => status.values?.includes(v))) return null;
  return { status, publishAt: e.fields.find((f) => f.name === "publishAt" && f.kind === "timestamp") };
}

/** A content entity (adminTitle, slug and a translatable title): its pages are titled by `title`. */
export function isContent(e: EntityMeta): boolean {
  const has = (name: string, kind: FieldMeta["kind"]) => e.fields.some((f) => f.name === name && f.kind === kind);
  return has("adminTitle", "text") && has("slug", "text") && has("title", "translations");
}

const EMPTY_DOC = { type: "doc", content: [{ type: "paragraph" }] };

function defaultOf(f: FieldMeta, languages: readonly string[]): unknown {
  const d = f.default;
  switch (d?.type) {
    case "text":
    case "int":
    case "bool":
      return d.value;
    case "json":
      try {
        return JSON.parse(String(d.value));
      } catch {
        return null;
      }
    case "emptyDoc":
      return Object.fromEntries(languages.map((l) => [l, EMPTY_DOC]));
    case "now":
      return new Date().toISOString();
    case "randomSlug":
    case "randomTitle":
      // Made from the title as it is typed (slug) or when saved (adminTitle): never random words.
      return "";
    default:
      break;
  }
  switch (f.kind) {
    case "bool":
      return false;
    case "translations":
    case "rich_text":
      return {};
    case "enum":
      return f.required ? (f.values?.[0] ?? null) : null;
    default:
      return f.kind === "text" ? "" : null;
  }
}

/** The values a new record's form starts with: the declared defaults (slug and adminTitle empty,
 * to be made from the title). A publishable record starts as a draft (the database's default,
 * `published`, is for API clients that do not send a status). */
export function initialValues(e: EntityMeta, languages: readonly string[], fixed: Values = {}): Values {
  const out: Values = {};
  for (const f of editableFields(e)) {
    out[f.name] = defaultOf(f, languages);
  }
  const p = publishing(e);
  if (p && !p.status.serverOwned) out[p.status.name] = "draft";
  return { ...out, ...fixed };
}

/** A record's values for editing: only the editable fields, absent ones from the defaults. */
export function recordValues(e: EntityMeta, row: Values, languages: readonly string[]): Values {
  const out: Values = {};
  for (const f of editableFields(e)) {
    const v = row[f.name];
    out[f.name] = v === undefined ? defaultOf(f, languages) : v;
  }
  return out;
}

const SLUG = /^[a-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The server's email rule (crates/kernel value.rs `is_email`): a local part, '@', a dotted domain, no spaces. */
export function isEmail(s: string): boolean {
  const at = s.indexOf("@");
  if (at <= 0 || s.length > 320) return false;
  const domain = s.slice(at + 1);
  const bad = [...s].some((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return /\s/.test(ch) || code < 0x20 || (code >= 0x7f && code <= 0x9f);
  });
  return domain.includes(".") && !domain.startsWith(".") && !domain.endsWith(".") && !bad;
}

/** What the checks of a form need besides the values. */
export interface Checks {
  /** Messages in the admin's language. */
  t: TFunction;
  /** A new record: a required field with a declared default may be left empty (the server fills it). */
  create: boolean;
  /** Content entities: the title needs a language (on create, and once a record has one). */
  requireTitle?: boolean;
  /** Whether `value` of the unique field `name` is known to be another record's. */
  taken?: (name: string, value: unknown) => boolean;
}

const english: Checks = { t: recordsT("en"), create: true };

/** Whether a translations or rich-text value has anything in one language. */
export function languageFilled(v: unknown): boolean {
  if (typeof v === "string") return v.trim() !== "";
  if (!v || typeof v !== "object") return false;
  const node = v as { type?: unknown; text?: unknown; content?: unknown };
  if (node.type === "text") return typeof node.text === "string" && node.text.trim() !== "";
  // An image, a rule, an embed: content without text.
  if (typeof node.type === "string" && !["doc", "paragraph", "hardBreak", "heading", "bulletList", "orderedList", "listItem", "blockquote"].includes(node.type)) return true;
  return Array.isArray(node.content) && node.content.some(languageFilled);
}

/** Whether any language of a translations / rich-text value has something. */
export function anyLanguage(v: unknown): boolean {
  return !!v && typeof v === "object" && Object.values(v as Record<string, unknown>).some(languageFilled);
}

/** Whether the server fills `f` when a create leaves it out (`/api/meta` says `{type: "none"}` for no default). */
export function hasDefault(f: FieldMeta): boolean {
  return !!f.default && f.default.type !== "none";
}

/** A field a new record may leave empty, to be made from its title (adminTitle by the server, the
 * slug by the form before it sends). */
export function madeWhenEmpty(f: FieldMeta): boolean {
  return f.default?.type === "randomTitle" || f.default?.type === "randomSlug";
}

/** Why the value of one field would be refused (in the admin's language), or null. */
export function fieldProblem(f: FieldMeta, v: unknown, c: Checks = english): string | null {
  const { t } = c;
  if (v instanceof Unparsed) return f.kind === "json" ? t("admin.invalidJson") : f.kind === "timestamp" ? t("admin.invalidDate") : t("records.check.invalid");
  if (v === null || v === undefined) return f.required && !(c.create && hasDefault(f)) ? t("errors.required") : null;
  if (v === "" && f.kind !== "json") return f.required && !(c.create && madeWhenEmpty(f)) ? t("errors.required") : null;
  const problem = ((): string | null => {
    switch (f.kind) {
      case "text": {
        const s = String(v);
        if (f.maxLength && [...s].length > f.maxLength) return t("errors.maxLength", { count: f.maxLength });
        if (f.format === "slug" && !SLUG.test(s)) return t("records.check.slug");
        if (f.format === "email" && !isEmail(s)) return t("errors.email");
        return null;
      }
      case "enum":
        return typeof v === "string" && (!f.values || f.values.includes(v)) ? null : t("records.check.oneOf", { values: (f.values ?? []).join(", ") });
      case "int":
        return Number.isInteger(v) ? null : t("records.check.wholeNumber");
      case "decimal":
        return (typeof v === "string" && DECIMAL.test(v.trim())) || (typeof v === "number" && Number.isFinite(v)) ? null : t("errors.number");
      case "uuid":
      case "reference":
        return typeof v === "string" && UUID.test(v) ? null : t("records.check.uuid");
      case "timestamp":
        return typeof v === "string" && !Number.isNaN(Date.parse(v)) ? null : t("admin.invalidDate");
      case "bool":
        return typeof v === "boolean" ? null : t("errors.required");
      case "translations":
      case "rich_text":
        return typeof v === "object" && !Array.isArray(v) ? null : t("records.check.invalid");
      case "json":
        return null;
    }
  })();
  if (problem) return problem;
  if (f.unique && c.taken?.(f.name, v)) return t("records.check.taken");
  return null;
}

/** Every refused field of a record (field → message), with the rules across fields: a content
 * entity's title in at least one language, a publishing time for a scheduled record. */
export function recordProblems(e: EntityMeta, values: Values, c: Checks = english): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of editableFields(e)) {
    const p = fieldProblem(f, values[f.name], c);
    if (p) out[f.name] = p;
  }
  if (c.requireTitle && isContent(e) && !out.title && !anyLanguage(values.title)) out.title = c.t("records.check.titleLanguage");
  const pub = publishing(e);
  if (pub?.publishAt && values[pub.status.name] === "scheduled" && !out[pub.publishAt.name]) {
    const at = values[pub.publishAt.name];
    if (at === null || at === undefined || at === "") out[pub.publishAt.name] = c.t("records.check.publishAt");
  }
  return out;
}

/** The form schema of an entity, from its declaration (messages in the admin's language). */
export function entitySchema(e: EntityMeta, c: Checks = english): z.ZodType<Values, Values> {
  return z.record(z.string(), z.unknown()).superRefine((values, ctx) => {
    for (const [path, message] of Object.entries(recordProblems(e, values, c))) ctx.addIssue({ code: "custom", path: [path], message });
  }) as unknown as z.ZodType<Values, Values>;
}

/**
 * A server message about a field (422 `fields`, 409 on a unique field) in the words the form's own
 * checks use, so the same mistake reads the same whoever caught it; others as the server said.
 */
export function serverFieldMessage(message: string, t: TFunction): string {
  const m = message.trim();
  let x: RegExpExecArray | null;
  if (/^is required$/i.test(m)) return t("errors.required");
  if ((x = /^must be at most (\d+) characters/i.exec(m))) return t("errors.maxLength", { count: Number(x[1]) });
  if (/^must be lower-case letters/i.test(m)) return t("records.check.slug");
  if (/^must be an email address/i.test(m)) return t("errors.email");
  if ((x = /^'.*' is not one of: (.*)$/i.exec(m))) return t("records.check.oneOf", { values: x[1] ?? "" });
  if (/^(already taken|is already taken)/i.test(m)) return t("records.check.taken");
  if (/^must be an integer$/i.test(m)) return t("records.check.wholeNumber");
  if (/^must be a decimal number/i.test(m)) return t("errors.number");
  if (/^must be an RFC 3339 timestamp$/i.test(m)) return t("admin.invalidDate");
  if (/^must be a uuid$/i.test(m)) return t("records.check.uuid");
  return message;
}

/** The body sent to the server: empty optional text becomes null; empty required text the server
 * fills (a new record's adminTitle) is left out; empty languages are left out. */
export function payload(e: EntityMeta, values: Values): Values {
  const out: Values = {};
  for (const f of editableFields(e)) {
    if (!(f.name in values)) continue;
    const v = values[f.name];
    if (f.kind === "translations" && v && typeof v === "object") {
      out[f.name] = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, s]) => typeof s === "string" && s !== ""));
      continue;
    }
    if (v === "" && f.required && madeWhenEmpty(f)) continue;
    out[f.name] = v === "" && !f.required ? null : v;
  }
  return out;
}

/** One language of a translations value, else the first language that has text. */
export function translated(v: unknown, lang: string): string {
  if (typeof v === "string") return v;
  if (!v || typeof v !== "object") return "";
  const o = v as Record<string, unknown>;
  const own = o[lang];
  if (typeof own === "string" && own.trim()) return own;
  const other = Object.values(o).find((x) => typeof x === "string" && x.trim());
  return typeof other === "string" ? other : "";
}

/**
 * What a record is called in the admin, in `lang`: its translatable title in that language, then
 * in another, then its title field (adminTitle), slug, email or name, then its id.
 */
export function rowTitle(e: EntityMeta, row: Values, lang: string): string {
  const title = row.title;
  if (title && typeof title === "object") {
    const s = translated(title, lang);
    if (s) return s;
  }
  for (const c of [e.titleField, "adminTitle", "title", "slug", "email", "name"]) {
    if (!c) continue;
    const v = row[c];
    const s = typeof v === "string" ? v : v && typeof v === "object" ? translated(v, lang) : "";
    if (s.trim()) return s;
  }
  return String(row.id ?? "");
}

/** What tells records of the same title apart in a picker: their admin title and slug. */
export function rowDetail(e: EntityMeta, row: Values, lang: string): string {
  const title = rowTitle(e, row, lang);
  const parts = [row.adminTitle, row.slug].filter((v): v is string => typeof v === "string" && !!v && v !== title);
  return [...new Set(parts)].join(" · ");
}

/** The translatable fields of an entity: translations and rich text, keyed by language. */
export function translatableFields(e: EntityMeta): FieldMeta[] {
  return e.fields.filter((f) => f.kind === "translations" || f.kind === "rich_text");
}

/** The languages a translatable value lacks while another language has it (an unused field lacks none). */
export function missingLanguages(value: unknown, languages: readonly string[]): string[] {
  if (!anyLanguage(value)) return [];
  const o = value as Record<string, unknown>;
  return languages.filter((l) => !languageFilled(o[l]));
}

/** For each language a record lacks somewhere, the translatable fields that lack it. */
export function missingTranslations(e: EntityMeta, row: Values, languages: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of translatableFields(e)) {
    for (const l of missingLanguages(row[f.name], languages)) (out[l] ??= []).push(f.name);
  }
  return out;
}

/** A value a uniqueness lookup can ask about (text or a number; empty is nobody's). */
function checkable(v: unknown): v is string | number {
  return (typeof v === "string" && v.trim() !== "") || (typeof v === "number" && Number.isFinite(v));
}

/**
 * Remembers which values of an entity's unique fields other records hold. `schedule` asks once
 * typing has paused (`delay` ms), `check` at once (on submit); each value is asked about once.
 * A failed lookup counts as free: the server still refuses a duplicate (409 on the field).
 */
export class UniqueChecker {
  private readonly known = new Map<string, boolean>();
  private readonly asking = new Map<string, Promise<boolean>>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly lookup: (name: string, value: string) => Promise<boolean>,
    readonly delay = 400,
  ) {}

  private static key(name: string, value: unknown): string {
    return `${name}\u0000${String(value)}`;
  }

  /** Whether `value` of `name` is known to be another record's (false while unknown). */
  taken(name: string, value: unknown): boolean {
    return checkable(value) && this.known.get(UniqueChecker.key(name, value)) === true;
  }

  /** Asks now (or reuses the answer) whether `value` of `name` is another record's. */
  check(name: string, value: unknown): Promise<boolean> {
    if (!checkable(value)) return Promise.resolve(false);
    const key = UniqueChecker.key(name, value);
    const known = this.known.get(key);
    if (known !== undefined) return Promise.resolve(known);
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.lookup(name, String(value))
        .catch(() => false)
        .then((taken) => {
          this.known.set(key, taken);
          this.asking.delete(key);
          return taken;
        });
      this.asking.set(key, asking);
    }
    return asking;
  }

  /** Asks about `value` once `name` has not changed for `delay` ms; `done` hears the answer unless
   * the field changed again meanwhile. */
  schedule(name: string, value: unknown, done: (taken: boolean) => void): void {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    if (!checkable(value)) return done(false);
    const known = this.known.get(UniqueChecker.key(name, value));
    if (known !== undefined) return done(known);
    const timer = setTimeout(() => {
      void this.check(name, value).then((taken) => {
        if (this.timers.get(name) === timer) {
          this.timers.delete(name);
          done(taken);
        }
      });
    }, this.delay);
    this.timers.set(name, timer);
  }

  /** Records what the server said (a 409 on the field), so the form's checks say it too. */
  remember(name: string, value: unknown, taken: boolean): void {
    if (checkable(value)) this.known.set(UniqueChecker.key(name, value), taken);
  }

  /** Stops the scheduled lookups (the form is gone). */
  cancel(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
