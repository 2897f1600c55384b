//! The admin's side list by what editors do, not by module: the site's pages and blocks, the
//! content, the store, people, messages, media, and the system. Relations (link records such as
//! an article's products) are not listed: they are edited inside the records they link. An
//! entity of a module not named here (an extension) is listed under its module's name.
import { type EntityMeta, entityKey, entityName, type Meta, moduleName } from "@/api/meta";

export const PURPOSES = ["site", "content", "store", "people", "messages", "media", "system"] as const;
export type Purpose = (typeof PURPOSES)[number];

/** Each entity's place, in the order a group lists them (what is used most first). */
const PLACES: Record<Purpose, readonly string[]> = {
  site: ["host.page", "host.layout", "host.widget", "host.metadata", "website-builder.widget", "website-builder.feature", "website-builder.button", "website-builder.buttons-array", "website-builder.slider", "website-builder.slide", "website-builder.logotype"],
  content: ["blog.article", "blog.category", "blog.widget"],
  store: ["ecommerce.order", "ecommerce.product", "ecommerce.category", "ecommerce.store", "ecommerce.attribute-key", "ecommerce.attribute", "ecommerce.order-status-change", "billing.currency", "billing.invoice", "billing.payment-intent", "ecommerce.widget", "billing.widget"],
  people: ["rbac.subject", "rbac.role", "rbac.permission", "rbac.identity", "rbac.session", "social.profile", "social.attribute-key", "social.attribute", "rbac.widget", "social.widget"],
  messages: ["crm.request", "crm.form", "crm.input", "social.chat", "social.message", "social.reaction", "notification.notification", "notification.template", "notification.topic", "crm.widget", "notification.widget"],
  media: ["file-storage.file", "file-storage.widget"],
  system: ["platform.audit", "platform.job", "billing.webhook", "analytic.metric", "analytic.count", "analytic.widget", "startup.widget"],
};

const PLACE = new Map<string, { purpose: Purpose; rank: number }>(PURPOSES.flatMap((p) => PLACES[p].map((key, rank) => [key, { purpose: p, rank }] as const)));

/** A group of the side list: a purpose (its words come from the admin's catalogue) or, for an
 * extension, a module (its words from `/api/meta`). */
export interface NavGroup {
  key: string;
  purpose: Purpose | null;
  title: string;
  entities: EntityMeta[];
}

/** The side list's groups, with the entities whose name (in `lang`) or key holds `filter`. */
export function navGroups(meta: Meta, lang: string, filter: string, purposeTitle: (p: Purpose) => string): NavGroup[] {
  const f = filter.trim().toLocaleLowerCase(lang);
  const shown = meta.entities.filter((e) => e.kind !== "relation" && (!f || entityName(e, lang, true).toLocaleLowerCase(lang).includes(f) || entityKey(e).includes(f)));
  const groups = new Map<string, NavGroup>();
  for (const p of PURPOSES) groups.set(p, { key: p, purpose: p, title: purposeTitle(p), entities: [] });
  for (const e of shown) {
    const place = PLACE.get(entityKey(e));
    const key = place ? place.purpose : `module:${e.module}`;
    if (!groups.has(key)) groups.set(key, { key, purpose: null, title: moduleName(meta, e.module, lang), entities: [] });
    groups.get(key)!.entities.push(e);
  }
  const rank = (e: EntityMeta) => PLACE.get(entityKey(e))?.rank ?? Number.MAX_SAFE_INTEGER;
  for (const g of groups.values()) g.entities.sort((a, b) => rank(a) - rank(b) || entityName(a, lang, true).localeCompare(entityName(b, lang, true), lang));
  return [...groups.values()].filter((g) => g.entities.length);
}
