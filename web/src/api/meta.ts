import { useQuery } from "@tanstack/react-query";
import { api } from "./client";
import type { components } from "./schema";

// The shapes of `/api/meta`, generated from the server's OpenAPI schemas (`npm run api:types`):
// a field kind added in Rust changes `FieldKind`, and every exhaustive switch over it stops
// compiling until the admin handles the new kind (`scripts/kind-check.mjs` proves it).
export type Meta = components["schemas"]["Meta"];
export type EntityMeta = components["schemas"]["MetaEntity"];
export type FieldMeta = components["schemas"]["MetaField"];
export type FieldKind = FieldMeta["kind"];

export const entityKey = (e: Pick<EntityMeta, "module" | "name">): string => `${e.module}.${e.name}`;

export function useMeta() {
  return useQuery({ queryKey: ["meta"], queryFn: () => api.get("/api/meta"), staleTime: Infinity });
}

/** Looks an entity up by `module.name`. */
export function findEntity(meta: Meta, key: string): EntityMeta | undefined {
  return meta.entities.find((e) => entityKey(e) === key);
}

/** Words in each language, as `/api/meta` serves them (a module's `words.toml`). */
export type Words = components["schemas"]["MetaWords"];

/** `w` in `lang` (English for a language it lacks), or undefined when there are no words. */
export function inLanguage(w: Words | null | undefined, lang: string): string | undefined {
  if (!w) return undefined;
  return (lang === "ru" ? w.ru : w.en) || w.en || w.ru || undefined;
}

/** A declared key made readable, for a module that brings no words (`payment-intents` → "Payment
 * intents", `publishAt` → "Publish at"). Every module of ours has words (a test holds them to it). */
export function humanize(key: string): string {
  const spaced = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[-_.]+/g, " ")
    .trim()
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** What an entity is called: one ("Article") or many ("Articles"). */
export function entityName(e: Pick<EntityMeta, "name" | "label" | "labelMany">, lang: string, many = false): string {
  return inLanguage(many ? e.labelMany : e.label, lang) ?? humanize(e.name);
}

/** What a field is called. */
export function fieldName(f: Pick<FieldMeta, "name" | "label">, lang: string): string {
  return inLanguage(f.label, lang) ?? humanize(f.name);
}

/** What to enter in a field, when its words say. */
export function fieldHelp(f: Pick<FieldMeta, "help">, lang: string): string | undefined {
  return inLanguage(f.help, lang);
}

/** What an enum value is called (`draft` → "Черновик"). */
export function valueName(f: Pick<FieldMeta, "valueLabels">, value: string, lang: string): string {
  return inLanguage(f.valueLabels?.[value], lang) ?? humanize(value);
}

/** What a module is called. */
export function moduleName(meta: Pick<Meta, "moduleLabels">, module: string, lang: string): string {
  return inLanguage(meta.moduleLabels[module]?.label, lang) ?? humanize(module);
}

/** A name inside a phrase ("New article", "Добавить: статья"): its first letter in lower case,
 * unless the name starts with an abbreviation ("CSS class", "SMTP"). */
export function inPhrase(name: string): string {
  return name.length > 1 && name[1] === name[1]!.toLowerCase() ? name.charAt(0).toLowerCase() + name.slice(1) : name;
}
