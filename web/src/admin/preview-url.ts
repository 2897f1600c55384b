// Where the public site shows a record, for the admin's Preview: a page's own URL, or the URL of
// the page whose template names the record's entity (`/blog/articles/[blog.articles.slug]`) with
// the record's slug put in. Publishable entities: those with `status` and `publishAt`.

import type { EntityMeta } from "@/api/meta";

/** Whether the entity has drafts (`status`: draft, published, scheduled). */
export function publishable(e: Pick<EntityMeta, "fields">): boolean {
  const status = e.fields.find((f) => f.name === "status");
  return !!status?.values?.includes("draft") && e.fields.some((f) => f.name === "publishAt");
}

/** The template segment that names a record of `e` by its slug: `[blog.articles.slug]` for `/api/blog/articles`. */
export function slugToken(e: Pick<EntityMeta, "path">): string {
  const route = e.path.replace(/^\/api\//, "").replace(/\//g, ".");
  return `[${route}.slug]`;
}

const SEGMENT = /\[[^\]]+\]/g;

/**
 * The page URL template that shows one record through `token`: the first whose only template
 * segment is `token` (a URL with other segments, say a category's, cannot be filled from the
 * record alone), shortest first.
 */
export function templateFor(urls: readonly string[], token: string): string | null {
  const fits = urls.filter((u) => u.includes(token) && (u.match(SEGMENT) ?? []).every((s) => s === token));
  fits.sort((a, b) => a.length - b.length || a.localeCompare(b));
  return fits[0] ?? null;
}

/** `template` with `token` replaced by `value` (URL-encoded). */
export function fillTemplate(template: string, token: string, value: string): string {
  return template.split(token).join(encodeURIComponent(value));
}

/** Whether a page URL is a template (has `[module.route.field]` segments). */
export function isTemplate(url: string): boolean {
  return new RegExp(SEGMENT.source).test(url);
}

/** The public URL of a page path in `lang`, asking the server for the preview (drafts shown). */
export function previewHref(lang: string, pageUrl: string): string {
  const path = pageUrl === "/" || pageUrl === "" ? "" : pageUrl.startsWith("/") ? pageUrl : `/${pageUrl}`;
  return `/${encodeURIComponent(lang)}${path}?preview=1`;
}

/** Why a record cannot be previewed, or where it can: the outcome of looking for its page. */
export type PreviewTarget = { href: string } | { reason: "noPage"; token: string } | { reason: "templatePage" } | { reason: "widgetNoPage" };

/** Where a record of `entity` is previewed, given the page URLs that may show it. */
export function previewTarget(entity: Pick<EntityMeta, "module" | "name" | "path">, record: Record<string, unknown>, lang: string, pageUrls: readonly string[]): PreviewTarget {
  const key = `${entity.module}.${entity.name}`;
  if (key === "host.page") {
    const url = typeof record.url === "string" ? record.url : "";
    return isTemplate(url) ? { reason: "templatePage" } : { href: previewHref(lang, url) };
  }
  if (key === "host.widget") {
    const url = pageUrls.find((u) => !isTemplate(u));
    return url !== undefined ? { href: previewHref(lang, url) } : { reason: "widgetNoPage" };
  }
  const token = slugToken(entity);
  const template = templateFor(pageUrls, token);
  const slug = typeof record.slug === "string" ? record.slug : "";
  if (!template || !slug) return { reason: "noPage", token };
  return { href: previewHref(lang, fillTemplate(template, token, slug)) };
}
