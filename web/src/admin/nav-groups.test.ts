import type { Meta } from "@/api/meta";
import { entityName, fieldName, inPhrase, valueName } from "@/api/meta";
import { entityMeta, field } from "@/test-meta";
import { navGroups } from "./nav-groups";

const words = (en: string, ru: string) => ({ en, ru });

const article = entityMeta("blog", "article", "articles", [], { label: words("Article", "Статья"), labelMany: words("Articles", "Статьи"), group: "content", rank: 10 });
const category = entityMeta("blog", "category", "categories", [], { label: words("Category", "Рубрика"), labelMany: words("Categories", "Рубрики"), group: "content", rank: 20 });
const blogWidget = entityMeta("blog", "widget", "widgets", [], { label: words("Blog widget", "Виджет блога"), labelMany: words("Blog widgets", "Виджеты блога"), group: "content" });
const order = entityMeta("ecommerce", "order", "orders", [], { label: words("Order", "Заказ"), labelMany: words("Orders", "Заказы"), group: "store", rank: 10 });
const link = entityMeta("blog", "articles-to-categories", "articles-to-categories", [], { kind: "relation", label: words("Link", "Связь"), labelMany: words("Links", "Связи"), group: "content" });
const plugin = entityMeta("acme-poll", "poll-answer", "poll-answers", []);
const meta: Meta = { languages: ["en", "ru"], modules: ["acme-poll", "blog", "ecommerce"], moduleLabels: {}, entities: [blogWidget, plugin, link, category, order, article] };
const titles = (p: string) => `[${p}]`;

describe("the admin's side list", () => {
  it("groups entities by purpose in the purposes' order, ranked ones first, relations left out, an extension under its module", () => {
    const groups = navGroups(meta, "ru", "", titles);
    expect(groups.map((g) => [g.title, g.entities.map((e) => entityName(e, "ru", true))])).toEqual([
      ["[content]", ["Статьи", "Рубрики", "Виджеты блога"]],
      ["[store]", ["Заказы"]],
      ["Acme poll", ["Poll answer"]],
    ]);
  });

  it("filters by the names in the admin's language, or by the key", () => {
    expect(navGroups(meta, "ru", "рубр", titles).flatMap((g) => g.entities.map((e) => e.name))).toEqual(["category"]);
    expect(navGroups(meta, "en", "ecommerce.", titles).flatMap((g) => g.entities.map((e) => e.name))).toEqual(["order"]);
    expect(navGroups(meta, "en", "links", titles)).toEqual([]);
  });
});

describe("the content model's words", () => {
  it("reads words in the language, and a key made readable where a module brings none", () => {
    expect(fieldName(field("publishAt", "timestamp", { label: words("Publish on", "Дата публикации") }), "ru")).toBe("Дата публикации");
    expect(fieldName(field("publishAt", "timestamp"), "ru")).toBe("Publish at");
    const status = field("status", "enum", { values: ["draft", "in_review"], valueLabels: { draft: words("Draft", "Черновик") } });
    expect([valueName(status, "draft", "ru"), valueName(status, "in_review", "ru")]).toEqual(["Черновик", "In review"]);
  });

  it("puts a name inside a phrase in lower case, unless it starts with an abbreviation", () => {
    expect([inPhrase("Статья"), inPhrase("Page block"), inPhrase("CSS class"), inPhrase("A")]).toEqual(["статья", "page block", "CSS class", "A"]);
  });
});
