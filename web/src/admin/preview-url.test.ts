import type { EntityMeta } from "@/api/meta";
import { entityMeta, field as f, publishingFields } from "@/test-meta";
import { fillTemplate, isTemplate, previewHref, previewTarget, publishable, slugToken, templateFor } from "./preview-url";

const entity = (module: string, name: string, route: string, withStatus = true): EntityMeta =>
  entityMeta(module, name, route, withStatus ? [f("slug", "text"), ...publishingFields()] : [f("slug", "text")]);

const article = entity("blog", "article", "articles");
const product = entity("ecommerce", "product", "products");
const page = entity("host", "page", "pages");
const widget = entity("host", "widget", "widgets");
const PAGES = ["/", "/blog", "/blog/categories/[blog.categories.slug]", "/blog/[blog.categories.slug]/[blog.articles.slug]", "/blog/articles/[blog.articles.slug]", "/ecommerce/products/[ecommerce.products.slug]"];

describe("preview URLs", () => {
  it("knows which entities have drafts", () => {
    expect(publishable(article)).toBe(true);
    expect(publishable(entity("blog", "category", "categories", false))).toBe(false);
  });

  it("names the template segment of an entity's slug from its route", () => {
    expect(slugToken(article)).toBe("[blog.articles.slug]");
    expect(slugToken(product)).toBe("[ecommerce.products.slug]");
  });

  it("picks the page template that the record alone can fill", () => {
    expect(templateFor(PAGES, "[blog.articles.slug]")).toBe("/blog/articles/[blog.articles.slug]");
    expect(templateFor(["/a/[blog.categories.slug]/[blog.articles.slug]"], "[blog.articles.slug]")).toBeNull();
    expect(templateFor(["/news/[blog.articles.slug]", "/b/[blog.articles.slug]"], "[blog.articles.slug]")).toBe("/b/[blog.articles.slug]");
    expect(templateFor([], "[blog.articles.slug]")).toBeNull();
  });

  it("fills a template and builds the language's preview link", () => {
    expect(fillTemplate("/blog/articles/[blog.articles.slug]", "[blog.articles.slug]", "my slug")).toBe("/blog/articles/my%20slug");
    expect(previewHref("ru", "/blog/articles/x")).toBe("/ru/blog/articles/x?preview=1");
    expect(previewHref("en", "/")).toBe("/en?preview=1");
    expect(isTemplate("/blog/[blog.articles.slug]")).toBe(true);
    expect(isTemplate("/blog")).toBe(false);
  });

  it("finds where each kind of record is previewed, or says why it cannot be", () => {
    expect(previewTarget(article, { slug: "spring" }, "ru", PAGES)).toEqual({ href: "/ru/blog/articles/spring?preview=1" });
    expect(previewTarget(product, { slug: "tree" }, "en", PAGES)).toEqual({ href: "/en/ecommerce/products/tree?preview=1" });
    expect(previewTarget(article, { slug: "spring" }, "ru", ["/"])).toEqual({ reason: "noPage", token: "[blog.articles.slug]" });
    expect(previewTarget(page, { url: "/about" }, "en", [])).toEqual({ href: "/en/about?preview=1" });
    expect(previewTarget(page, { url: "/blog/articles/[blog.articles.slug]" }, "en", [])).toEqual({ reason: "templatePage" });
    expect(previewTarget(widget, {}, "ru", ["/x/[blog.articles.slug]", "/"])).toEqual({ href: "/ru?preview=1" });
    expect(previewTarget(widget, {}, "ru", [])).toEqual({ reason: "widgetNoPage" });
  });
});
