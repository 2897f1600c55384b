import type { Meta } from "@/api/meta";
import { entityMeta, field } from "@/test-meta";
import { ordered, renumber } from "./order";
import { type Block, blockTitle, choices } from "./page-builder";

const widget = (module: string, variants: string[]) =>
  entityMeta(module, "widget", "widgets", [field("variant", "enum", { values: variants }), field("adminTitle", "text"), field("title", "translations")], { variants });
const meta: Meta = {
  languages: ["en", "ru"],
  modules: ["host", "website-builder", "blog"],
  moduleLabels: {},
  entities: [widget("host", ["default"]), widget("website-builder", ["default", "hero-default"]), widget("blog", ["list-default"])],
};

describe("the page builder", () => {
  it("offers every variant of every module's widget, not the host's own", () => {
    expect(choices(meta).map((c) => `${c.module}.${c.variant}`)).toEqual(["website-builder.default", "website-builder.hero-default", "blog.list-default"]);
  });

  it("orders a page's blocks by position, then by when they were linked", () => {
    const links = [
      { id: "c", orderIndex: 1, createdAt: "2026-01-01" },
      { id: "b", orderIndex: 0, createdAt: "2026-01-02" },
      { id: "a", orderIndex: 0, createdAt: "2026-01-01" },
    ];
    expect(ordered(links).map((l) => l.id)).toEqual(["a", "b", "c"]);
  });

  it("writes only the positions that change", () => {
    expect(renumber([{ id: "a", orderIndex: 0 }, { id: "c", orderIndex: 2 }, { id: "b", orderIndex: 1 }])).toEqual([
      { id: "c", orderIndex: 1 },
      { id: "b", orderIndex: 2 },
    ]);
  });

  it("names a block by what the page shows: its part's title, else its own", () => {
    const block: Block = { link: { id: "l" }, widget: { id: "w", adminTitle: "Host block" }, parts: [{ module: "website-builder", row: { id: "p", title: { ru: "Сажаем вместе" } } }] };
    expect(blockTitle(block, meta, "en")).toBe("Сажаем вместе");
    expect(blockTitle({ ...block, parts: [] }, meta, "en")).toBe("Host block");
  });
});

describe("the gallery's thumbnails", () => {
  it("draw each variant as the layout its name says", async () => {
    const { sketchFamily } = await import("./variant-sketch");
    expect(sketchFamily("blog", "article-list-default")).toBe("list");
    expect(sketchFamily("ecommerce", "product-overview-default")).toBe("overview");
    expect(sketchFamily("rbac", "subject-authentication-email-and-password-registration-form-default")).toBe("form");
    expect(sketchFamily("rbac", "subject-authentication-logout-action-default")).toBe("button");
    expect(sketchFamily("blog", "category-list-button-default")).toBe("button");
    expect(sketchFamily("crm", "textarea-default")).toBe("form");
    expect(sketchFamily("social", "chat-list-default")).toBe("chat");
    expect(sketchFamily("ecommerce", "receipt-default")).toBe("document");
    expect(sketchFamily("website-builder", "slider-default")).toBe("slider");
    expect(sketchFamily("website-builder", "navbar-default")).toBe("nav");
    expect(sketchFamily("website-builder", "hero-default")).toBe("hero");
    expect(sketchFamily("website-builder", "default")).toBe("hero");
    expect(sketchFamily("notification", "default")).toBe("text");
    expect(sketchFamily("website-builder", "content-block-for-planet-gallery-and-text-inversed")).toBe("galleryInversed");
    expect(sketchFamily("website-builder", "content-block-for-planet-target")).toBe("progress");
    expect(sketchFamily("website-builder", "content-block-for-planet-heading")).toBe("heading");
    expect(sketchFamily("website-builder", "content-block-for-planet-create-subscription")).toBe("form");
    expect(sketchFamily("website-builder", "content-block-for-planet-faq")).toBe("faq");
    expect(sketchFamily("website-builder", "something-new")).toBe("text");
  });
});
