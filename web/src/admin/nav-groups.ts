//! The admin's side list by what editors do, not by module: the site's pages and blocks, the
//! content, the store, people, messages, media, and the system. Each entity's group and rank
//! come with its words (its module's `words.toml`, served by `/api/meta`), so a new module
//! places its entities itself. Relations (link records such as an article's products) are not
//! listed: they are edited inside the records they link. An entity with no group (a module that
//! brings no words) is listed under its module's name.
import { type EntityMeta, entityKey, entityName, type Meta, moduleName } from "@/api/meta";

export type Purpose = NonNullable<EntityMeta["group"]>;

/** The purposes in the side list's order. */
export const PURPOSES: readonly Purpose[] = ["site", "content", "store", "people", "messages", "media", "system"];

/** A group of the side list: a purpose (its words from the admin's catalogue) or, for an
 * extension, a module (its words from `/api/meta`). */
export interface NavGroup {
  key: string;
  purpose: Purpose | null;
  title: string;
  entities: EntityMeta[];
}

/** The side list's groups, with the entities whose name (in `lang`) or key holds `filter`;
 * ranked ones first in a group, the rest by name. */
export function navGroups(meta: Meta, lang: string, filter: string, purposeTitle: (p: Purpose) => string): NavGroup[] {
  const f = filter.trim().toLocaleLowerCase(lang);
  const shown = meta.entities.filter((e) => e.kind !== "relation" && (!f || entityName(e, lang, true).toLocaleLowerCase(lang).includes(f) || entityKey(e).includes(f)));
  const groups = new Map<string, NavGroup>(PURPOSES.map((p) => [p, { key: p, purpose: p, title: purposeTitle(p), entities: [] }]));
  for (const e of shown) {
    const key = e.group ?? `module:${e.module}`;
    if (!groups.has(key)) groups.set(key, { key, purpose: null, title: moduleName(meta, e.module, lang), entities: [] });
    groups.get(key)!.entities.push(e);
  }
  const rank = (e: EntityMeta) => e.rank ?? Number.MAX_SAFE_INTEGER;
  for (const g of groups.values()) g.entities.sort((a, b) => rank(a) - rank(b) || entityName(a, lang, true).localeCompare(entityName(b, lang, true), lang));
  return [...groups.values()].filter((g) => g.entities.length);
}
