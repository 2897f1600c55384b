import slugify from "@sindresorhus/slugify";
import type { FieldMeta } from "@/api/meta";
import type { Values } from "./schema";

/**
 * Fields an editor rarely touches, as the content model declares them (`/api/meta`): how a record
 * is styled (className, variant), the names it is known by to editors and in addresses (adminTitle,
 * slug, both made from the title), and its place in a list (orderIndex, which dragging sets). The
 * form keeps them in a closed "Advanced" section.
 */
export function isAdvanced(f: Pick<FieldMeta, "advanced">): boolean {
  return f.advanced;
}

/** The record's title in the first of `languages` that has one ("" for none). */
export function titleText(values: Values, languages: readonly string[]): string {
  const title = values.title;
  if (typeof title === "string") return title.trim();
  if (!title || typeof title !== "object") return "";
  const o = title as Record<string, unknown>;
  for (const l of [...languages, ...Object.keys(o)]) {
    const s = o[l];
    if (typeof s === "string" && s.trim()) return s.trim();
  }
  return "";
}

/** A slug made from a title: Latin letters (Cyrillic transliterated: "Ёлка и щука" → "yolka-i-schuka"),
 * digits and hyphens, at most `maxLength` characters, never ending in a hyphen. */
export function slugFrom(title: string, maxLength?: number | null): string {
  const s = slugify(title, { decamelize: false });
  return (maxLength ? s.slice(0, maxLength) : s).replace(/-+$/, "");
}

/** `base`, else `base-2`, `base-3`, … : the first that `taken` says is free (after 50 tries, `base` with a
 * time stamp, which the server's unique check still judges). */
export async function freeSlug(base: string, taken: (slug: string) => Promise<boolean>, maxLength?: number | null): Promise<string> {
  const fit = (suffix: string) => (maxLength ? base.slice(0, maxLength - suffix.length).replace(/-+$/, "") : base) + suffix;
  if (!(await taken(base))) return base;
  for (let n = 2; n <= 50; n++) {
    const s = fit(`-${n}`);
    if (!(await taken(s))) return s;
  }
  return fit(`-${Date.now().toString(36)}`);
}
