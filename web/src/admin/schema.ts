import { z } from "zod";
import type { EntityMeta, FieldMeta } from "@/api/meta";

export type Values = Record<string, unknown>;

const WORDS = {
  adjective: ["far", "calm", "bold", "kind", "wise", "swift", "bright", "quiet", "brave", "gentle", "lucky", "proud"],
  colour: ["salmon", "amber", "olive", "coral", "indigo", "ivory", "teal", "plum", "sage", "rust", "azure", "jade"],
  animal: ["cod", "fox", "owl", "elk", "lynx", "heron", "otter", "crane", "bison", "finch", "hare", "seal"],
};

function pick(list: string[]): string {
  return list[Math.floor(Math.random() * list.length)] ?? list[0] ?? "x";
}

/** Three random words (adjective-colour-animal), as the server generates for slug and adminTitle. */
export function randomWords(): [string, string, string] {
  return [pick(WORDS.adjective), pick(WORDS.colour), pick(WORDS.animal)];
}

/** The fields an administrator edits: everything the server does not own. */
export function editableFields(e: EntityMeta): FieldMeta[] {
  return e.fields.filter((f) => !f.serverOwned && f.name !== "id");
}

const EMPTY_DOC = { type: "doc", content: [{ type: "paragraph" }] };

function defaultOf(f: FieldMeta, languages: readonly string[], words: [string, string, string]): unknown {
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
      return words.join("-");
    case "randomTitle":
      return words.join(" ");
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

/** The values a new record's form starts with: the declared defaults (slug and adminTitle get
 * the same three random words, as the server would make them). */
export function initialValues(e: EntityMeta, languages: readonly string[], fixed: Values = {}): Values {
  const words = randomWords();
  const out: Values = {};
  for (const f of editableFields(e)) {
    out[f.name] = defaultOf(f, languages, words);
  }
  return { ...out, ...fixed };
}

/** A record's values for editing: only the editable fields, absent ones from the defaults. */
export function recordValues(e: EntityMeta, row: Values, languages: readonly string[]): Values {
  const out: Values = {};
  for (const f of editableFields(e)) {
    const v = row[f.name];
    out[f.name] = v === undefined ? defaultOf(f, languages, randomWords()) : v;
  }
  return out;
}

const SLUG = /^[a-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function fieldSchema(f: FieldMeta): z.ZodType {
  const opt = (s: z.ZodType) => (f.required ? s : s.nullable().optional());
  switch (f.kind) {
    case "text": {
      let s = z.string();
      if (f.maxLength) s = s.max(f.maxLength, `must be at most ${f.maxLength} characters`);
      if (f.format === "email") return f.required ? z.string().email("must be an email") : z.union([z.literal(""), z.string().email("must be an email")]).nullable().optional();
      if (f.format === "slug") s = s.regex(SLUG, "use lower-case letters, digits, - and _");
      if (f.required) s = s.min(1, "is required");
      return f.required ? s : z.union([z.literal(""), s]).nullable().optional();
    }
    case "int":
      return opt(z.number().int("must be a whole number"));
    case "decimal":
      return opt(z.union([z.string().regex(/^-?\d+(\.\d+)?$/, "must be a number"), z.number()]));
    case "bool":
      return z.boolean();
    case "uuid":
    case "reference":
      return opt(z.string().regex(UUID, "is required"));
    case "timestamp":
      return opt(z.string().min(1));
    case "enum":
      return opt(z.string().refine((v) => !f.values || f.values.includes(v), "is not an allowed value"));
    case "translations":
      return z.record(z.string(), z.string().nullable());
    case "rich_text":
      return z.record(z.string(), z.unknown());
    case "json":
      return z.unknown();
  }
}

/** The form schema of an entity, from its declaration. */
export function entitySchema(e: EntityMeta): z.ZodType<Values, Values> {
  const shape: Record<string, z.ZodType> = {};
  for (const f of editableFields(e)) shape[f.name] = fieldSchema(f);
  return z.object(shape).passthrough() as unknown as z.ZodType<Values, Values>;
}

/** The body sent to the server: empty optional text becomes null. */
export function payload(e: EntityMeta, values: Values): Values {
  const out: Values = {};
  for (const f of editableFields(e)) {
    if (!(f.name in values)) continue;
    const v = values[f.name];
    out[f.name] = v === "" && !f.required ? null : v;
  }
  return out;
}

/** What a row is called in lists and selects. */
export function rowTitle(e: EntityMeta, row: Values, lang: string): string {
  const candidates = [e.titleField, "adminTitle", "title", "slug", "email", "name"].filter(Boolean) as string[];
  for (const c of candidates) {
    const v = row[c];
    if (typeof v === "string" && v) return v;
    if (v && typeof v === "object") {
      const t = (v as Record<string, unknown>)[lang] ?? Object.values(v as Record<string, unknown>).find((x) => typeof x === "string" && x);
      if (typeof t === "string" && t) return t;
    }
  }
  return String(row.id ?? "");
}
