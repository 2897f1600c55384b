import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Meta } from "@/api/meta";
import i18n from "@/i18n";
import { reply, type Sent, stubFetch } from "@/test-fetch";
import { entityMeta, field, fileEntity } from "@/test-meta";
import { RelationList, relationHeading, relationSide, thumbnailOf } from "./relation-list";

const words = (en: string, ru: string) => ({ en, ru });
const article = entityMeta("blog", "article", "articles", [field("id", "uuid"), field("adminTitle", "text"), field("title", "translations")], { label: words("Article", "Статья"), labelMany: words("Articles", "Статьи") });
const category = entityMeta("blog", "category", "categories", [field("id", "uuid"), field("adminTitle", "text"), field("title", "translations")], { label: words("Category", "Рубрика"), labelMany: words("Categories", "Рубрики") });
const files = fileEntity([field("id", "uuid"), field("adminTitle", "text"), field("file", "text", { format: "file" }), field("mimeType", "text")]);
const relation = (name: string, left: [string, string], right: [string, string], extra = {}) =>
  entityMeta("blog", name, name, [field("id", "uuid"), field("orderIndex", "int"), field("className", "text"), field(left[0], "reference", { target: left[1] }), field(right[0], "reference", { target: right[1] })], { kind: "relation", ...extra });
const categoriesToArticles = relation("categories-to-articles", ["categoryId", "blog.category"], ["articleId", "blog.article"], { labelMany: words("Category's articles", "Статьи рубрики") });
const articleFiles = relation("articles-to-file-storage-module-files", ["articleId", "blog.article"], ["fileStorageModuleFileId", "file-storage.file"], {
  labelMany: words("Article's files", "Файлы статьи"),
  help: words("The first one is its cover.", "Первый файл — обложка."),
});
const meta: Meta = { languages: ["en", "ru"], modules: ["blog", "file-storage"], moduleLabels: {}, entities: [article, category, files, categoriesToArticles, articleFiles] };

const ART = "0191e6a4-0000-7000-8000-0000000000a1";
const CAT = (n: number) => `0191e6a4-0000-7000-8000-00000000000${n}`;

describe("a relation inside a record", () => {
  beforeEach(async () => {
    await i18n.changeLanguage("ru");
  });
  afterEach(async () => {
    vi.unstubAllGlobals();
    await i18n.changeLanguage("en");
  });

  it("is seen from either end, and only a two-ended relation is a list", () => {
    const fromArticle = relationSide(meta, categoriesToArticles, "articleId");
    expect(fromArticle).toMatchObject({ fixed: "articleId", left: false, target: category });
    expect(fromArticle?.other.name).toBe("categoryId");
    expect(relationSide(meta, categoriesToArticles, "categoryId")).toMatchObject({ left: true, target: article });
    expect(relationSide(meta, article, "id")).toBeNull();
    expect(relationSide(meta, categoriesToArticles, "nothing")).toBeNull();
  });

  it("is called by its own words from its first end, and by what it links from the other", () => {
    expect(relationHeading(relationSide(meta, categoriesToArticles, "categoryId")!, "ru")).toBe("Статьи рубрики");
    // From the article, "the category's articles" would be the wrong way round: its categories.
    expect(relationHeading(relationSide(meta, categoriesToArticles, "articleId")!, "ru")).toBe("Рубрики");
    expect(relationHeading(relationSide(meta, articleFiles, "articleId")!, "en")).toBe("Article's files");
  });

  it("shows a stored image as a small picture, another file as a file, a record without one as nothing", () => {
    const hash = "a".repeat(64);
    expect(thumbnailOf(files, { id: "f", file: `/files/${hash}.png`, mimeType: "image/png" })).toEqual({ src: `/files/${hash}.png?w=128&format=webp`, kind: "image" });
    expect(thumbnailOf(files, { id: "f", file: "/files/demo/report.pdf", mimeType: "application/pdf" })).toEqual({ src: "/files/demo/report.pdf", kind: "file" });
    expect(thumbnailOf(category, { id: "c", adminTitle: "Science" })).toBeNull();
    expect(thumbnailOf(category, undefined)).toBeNull();
  });

  function serve(links: { id: string; categoryId: string; orderIndex: number }[]) {
    const state = { links: [...links] };
    const sent = stubFetch((s: Sent) => {
      const u = new URL(s.url, "http://x");
      if (u.pathname === "/api/blog/categories-to-articles" && s.method === "GET") return reply(200, { data: state.links.map((l) => ({ ...l, articleId: ART })) }, { "x-total-count": String(state.links.length) });
      if (u.pathname === "/api/blog/categories" && s.method === "GET")
        return reply(200, {
          data: [1, 2, 3].map((n) => ({ id: CAT(n), adminTitle: `cat-${n}`, title: { ru: ["Наука", "Лес", "Реки"][n - 1] } })),
        });
      if (s.method === "DELETE") {
        state.links = state.links.filter((l) => !u.pathname.endsWith(l.id));
        return reply(200, { data: {} });
      }
      if (s.method === "PATCH" && u.pathname.endsWith("/bulk")) {
        for (const { id, data } of s.body as { id: string; data: object }[]) state.links = state.links.map((l) => (l.id === id ? { ...l, ...data } : l));
        return reply(200, { data: [] });
      }
      if (s.method === "POST") {
        const b = s.body as { categoryId: string; orderIndex: number };
        state.links.push({ id: `l${state.links.length + 9}`, categoryId: b.categoryId, orderIndex: b.orderIndex });
        return reply(201, { data: {} });
      }
      return reply(404, { error: "not here" });
    });
    return sent;
  }

  function show() {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const side = relationSide(meta, categoriesToArticles, "articleId")!;
    return render(
      <QueryClientProvider client={qc}>
        <RelationList side={side} meta={meta} lang="ru" id={ART} overflow={<p>table</p>} />
      </QueryClientProvider>,
    );
  }

  it("lists the linked records by title in their order, moves one by the keyboard and unlinks one", async () => {
    const sent = serve([
      { id: "l2", categoryId: CAT(2), orderIndex: 1 },
      { id: "l1", categoryId: CAT(1), orderIndex: 0 },
    ]);
    show();
    const list = await screen.findByRole("list", { name: "Рубрики" });
    await within(list).findByText("Лес");
    expect(within(list).getAllByTestId("relation-title").map((a) => a.textContent)).toEqual(["Наука", "Лес"]);
    expect(within(list).getAllByTestId("relation-title")[0]).toHaveAttribute("href", `/admin/blog/category?edit=${CAT(1)}`);

    // The first goes down one place: both links get their new positions.
    const user = userEvent.setup();
    screen.getByRole("button", { name: "Переместить «Наука»" }).focus();
    await user.keyboard("{ArrowDown}");
    await vi.waitFor(() => expect(sent.filter((s) => s.method === "PATCH")).toHaveLength(1));
    // Both new positions in one request (one transaction).
    expect(sent.filter((s) => s.method === "PATCH").map((s) => [s.url, s.body])).toEqual([
      [
        "/api/blog/categories-to-articles/bulk",
        [
          { id: "l2", data: { orderIndex: 0 } },
          { id: "l1", data: { orderIndex: 1 } },
        ],
      ],
    ]);
    await vi.waitFor(() => expect(within(list).getAllByTestId("relation-title").map((a) => a.textContent)).toEqual(["Лес", "Наука"]));
    expect(screen.getByText("«Наука» теперь на месте 2 из 2.")).toBeInTheDocument();

    // Unlinking removes the link, not the category.
    await user.click(screen.getByRole("button", { name: "Отвязать «Лес»" }));
    await vi.waitFor(() => expect(sent.some((s) => s.method === "DELETE")).toBe(true));
    expect(sent.find((s) => s.method === "DELETE")?.url).toBe("/api/blog/categories-to-articles/l2");
    await vi.waitFor(() => expect(within(screen.getByRole("list", { name: "Рубрики" })).getAllByTestId("relation-title").map((a) => a.textContent)).toEqual(["Наука"]));
  });

  it("links a record found with the picker, at the end, and marks what is already linked", async () => {
    const sent = serve([{ id: "l1", categoryId: CAT(1), orderIndex: 0 }]);
    show();
    await screen.findByText("Наука", { selector: "a" });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Выбрать: рубрика" }));
    const reki = await screen.findByRole("button", { name: /Реки/ });
    expect(screen.getByRole("button", { name: /Наука.*уже связано/ })).toBeDisabled();
    await user.click(reki);
    await vi.waitFor(() => expect(sent.some((s) => s.method === "POST")).toBe(true));
    expect(sent.find((s) => s.method === "POST")).toMatchObject({ url: "/api/blog/categories-to-articles", body: { articleId: ART, categoryId: CAT(3), orderIndex: 1 } });
    await screen.findByText("Реки", { selector: "a" });
  });

  it("shows the paged table instead when the record has more links than a list holds", async () => {
    stubFetch(() => reply(200, { data: [] }, { "x-total-count": "250" }));
    show();
    await screen.findByText("table");
  });
});
