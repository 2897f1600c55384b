import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import type { EntityMeta, Meta } from "@/api/meta";
import i18n from "@/i18n";
import { entityMeta, field as f } from "@/test-meta";
import { reply, stubFetch } from "@/test-fetch";
import { byIdsQuery, missingConditions, referencedIds } from "./records";
import { missingLanguages, missingTranslations, rowDetail, rowTitle } from "./schema";
import { EntityTable } from "./table";

function entity(module: string, name: string, route: string, fields: EntityMeta["fields"], extra: Partial<EntityMeta> = {}): EntityMeta {
  return entityMeta(module, name, route, [f("id", "uuid", { serverOwned: true }), ...fields], {
    ops: { create: true, update: true, delete: true, findOrCreate: false, bulk: false },
    ...extra,
  });
}

const widget = entity("host", "widget", "widgets", [f("adminTitle", "text", { required: true }), f("slug", "text", { unique: true, format: "slug" }), f("title", "translations"), f("description", "rich_text")], {
  listColumns: ["adminTitle", "title"],
});
const page = entity("host", "page", "pages", [f("adminTitle", "text"), f("title", "text")]);
const link = entity("host", "pages-to-widgets", "pages-to-widgets", [f("pageId", "reference", { target: "host.page" }), f("widgetId", "reference", { target: "host.widget" }), f("backupId", "reference", { target: "host.widget" })], {
  kind: "relation",
  titleField: null,
});
const meta: Meta = { languages: ["en", "ru"], modules: ["host"], moduleLabels: {}, entities: [widget, page, link] };
const id = (n: number) => `0191e6a4-0000-7000-8000-00000000000${n}`;
const doc = (text: string) => ({ type: "doc", content: [{ type: "paragraph", content: text ? [{ type: "text", text }] : [] }] });

describe("what a record is called", () => {
  it("the title in the admin's language, then another language, then adminTitle, slug, id", () => {
    const row = { id: id(1), adminTitle: "Tree widget", slug: "tree", title: { en: "Plant a tree", ru: "Посади дерево" } };
    expect(rowTitle(widget, row, "ru")).toBe("Посади дерево");
    expect(rowTitle(widget, row, "en")).toBe("Plant a tree");
    expect(rowTitle(widget, { ...row, title: { en: "Plant a tree", ru: "" } }, "ru")).toBe("Plant a tree");
    expect(rowTitle(widget, { ...row, title: {} }, "ru")).toBe("Tree widget");
    expect(rowTitle(widget, { ...row, title: {}, adminTitle: "" }, "ru")).toBe("tree");
    expect(rowTitle(widget, { id: id(1), title: {} }, "ru")).toBe(id(1));
    // A plain text title (host.page) after the admin title.
    expect(rowTitle(page, { id: id(2), adminTitle: "", title: "Home" }, "en")).toBe("Home");
    expect(rowDetail(widget, row, "en")).toBe("Tree widget · tree");
  });
});

describe("translation completeness", () => {
  it("lists the languages a field lacks while another has it, rich text by its text", () => {
    expect(missingLanguages({ en: "Tree" }, ["en", "ru"])).toEqual(["ru"]);
    expect(missingLanguages({ en: "Tree", ru: " " }, ["en", "ru"])).toEqual(["ru"]);
    expect(missingLanguages({ en: "Tree", ru: "Дерево" }, ["en", "ru"])).toEqual([]);
    expect(missingLanguages({}, ["en", "ru"])).toEqual([]);
    expect(missingLanguages({ en: doc(""), ru: doc("") }, ["en", "ru"])).toEqual([]);
    expect(missingLanguages({ en: doc("Hello"), ru: doc("") }, ["en", "ru"])).toEqual(["ru"]);
    expect(missingLanguages({ en: { type: "doc", content: [{ type: "image", attrs: { src: "/x.png" } }] } }, ["en", "ru"])).toEqual(["ru"]);
    const row = { id: id(1), title: { ru: "Дерево" }, description: { en: doc("About"), ru: doc("") } };
    expect(missingTranslations(widget, row, ["en", "ru"])).toEqual({ en: ["title"], ru: ["description"] });
  });
});

describe("reference titles", () => {
  it("asks each target entity once for the ids of a page, whichever columns point at it", () => {
    const rows = [
      { id: id(1), pageId: id(5), widgetId: id(3), backupId: id(4) },
      { id: id(2), pageId: id(5), widgetId: id(4), backupId: null },
    ];
    const groups = referencedIds(meta, link.fields, rows);
    expect([...groups.keys()]).toEqual(["/api/host/pages", "/api/host/widgets"]);
    expect(groups.get("/api/host/widgets")?.ids).toEqual([id(3), id(4)]);
    expect(byIdsQuery([id(3), id(4)])).toEqual({ filters: JSON.stringify({ and: [{ column: "id", method: "inArray", value: [id(3), id(4)] }] }), limit: 2 });
  });
});

describe("the table's readable records", () => {
  afterEach(async () => {
    cleanup();
    vi.unstubAllGlobals();
    await i18n.changeLanguage("en");
  });

  function renderTable(e: EntityMeta, lang = "en") {
    render(
      <MemoryRouter>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <EntityTable entity={e} meta={meta} lang={lang} />
        </QueryClientProvider>
      </MemoryRouter>,
    );
  }

  it("shows each reference by its target's title in the admin's language, linked, with one request per target", async () => {
    await i18n.changeLanguage("ru");
    const sent = stubFetch((s) => {
      if (s.url.startsWith("/api/host/pages-to-widgets?"))
        return reply(200, {
          data: [
            { id: id(1), pageId: id(5), widgetId: id(3), backupId: id(4) },
            { id: id(2), pageId: id(5), widgetId: id(4), backupId: null },
          ],
        });
      if (s.url.startsWith("/api/host/widgets?"))
        return reply(200, {
          data: [
            { id: id(3), adminTitle: "Tree", title: { en: "Plant a tree", ru: "Посади дерево" } },
            { id: id(4), adminTitle: "Only admin title", title: {} },
          ],
        });
      if (s.url.startsWith("/api/host/pages?")) return reply(200, { data: [{ id: id(5), adminTitle: "Home page" }] });
      return reply(404, { status: 404, code: "not_found", error: "no" });
    });
    renderTable(link, "ru");
    const links = await screen.findAllByRole("link", { name: "Посади дерево" });
    expect(links[0]).toHaveAttribute("href", `/admin/host/widget?edit=${id(3)}`);
    expect(screen.getAllByRole("link", { name: "Only admin title" })).toHaveLength(2);
    expect(screen.getAllByRole("link", { name: "Home page" })).toHaveLength(2);
    const widgets = sent.filter((s) => s.url.startsWith("/api/host/widgets"));
    const pages = sent.filter((s) => s.url.startsWith("/api/host/pages?"));
    expect(widgets).toHaveLength(1);
    expect(pages).toHaveLength(1);
    expect(JSON.parse(new URL(widgets[0]!.url, "http://x").searchParams.get("filters")!)).toEqual({ and: [{ column: "id", method: "inArray", value: [id(3), id(4)] }] });
    // No row of the relation shows a truncated id any more: its id is a copy button.
    expect(screen.getAllByRole("button", { name: "Скопировать id" })).toHaveLength(2);
  });

  it("pages on from each page's cursor, and offers sorting only where the server can sort", async () => {
    const sent = stubFetch((s) => {
      const q = new URL(s.url, "http://x").searchParams;
      const from = q.has("after") ? Number(q.get("after")!.slice(1)) : Number(q.get("offset") ?? 0);
      const rows = Array.from({ length: 20 }, (_, i) => ({ id: `0191e6a4-0000-7000-8000-${String(from + i).padStart(12, "0")}`, adminTitle: `Row ${from + i}`, title: {} }));
      return reply(200, { data: rows }, { "x-total-count": "100000", "x-total-count-exact": "false", "x-next-cursor": `c${from + 20}` });
    });
    renderTable({ ...widget, fields: widget.fields.map((x) => (x.name === "adminTitle" ? { ...x, sortable: true } : x)) });
    await screen.findByText("Row 0");
    const nav = screen.getByRole("navigation", { name: "Pages: widget" });
    await userEvent.click(within(nav).getByRole("button", { name: "Next" }));
    await screen.findByText("Row 20");
    await userEvent.click(within(nav).getByRole("button", { name: "Next" }));
    await screen.findByText("Row 40");
    const lists = sent.map((s) => new URL(s.url, "http://x").searchParams);
    expect(lists.map((q) => q.get("after"))).toEqual([null, "c20", "c40"]);
    // Back to the second page: its cursor again, never an offset past the first page.
    await userEvent.click(within(nav).getByRole("button", { name: "Previous" }));
    await screen.findByText("Row 20");
    expect(sent.every((s) => [null, "0"].includes(new URL(s.url, "http://x").searchParams.get("offset")))).toBe(true);
    // adminTitle sorts (an index leads it); the translated title does not.
    expect(screen.getByRole("button", { name: "Admin title" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Title" })).toBeNull();
  });

  it("copies a row's whole id", async () => {
    stubFetch(() => reply(200, { data: [{ id: id(7), adminTitle: "Tree", title: { en: "Tree", ru: "Дерево" } }] }));
    const writeText = vi.fn(async () => undefined);
    const clipboard = Object.getOwnPropertyDescriptor(navigator, "clipboard");
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    try {
      renderTable(widget);
      await userEvent.click(await screen.findByRole("button", { name: "Copy id" }));
      expect(writeText).toHaveBeenCalledWith(id(7));
    } finally {
      if (clipboard) Object.defineProperty(navigator, "clipboard", clipboard);
      else Reflect.deleteProperty(navigator, "clipboard");
    }
  });

  it("marks rows lacking a language and filters by it on the server", async () => {
    const rows = [
      { id: id(1), adminTitle: "Both", title: { en: "Both languages", ru: "Оба" } },
      { id: id(2), adminTitle: "English only", title: { en: "In English" } },
      { id: id(3), adminTitle: "Russian only", title: { ru: "Только русский" } },
    ];
    const sent = stubFetch((s) => {
      const filters = new URL(s.url, "http://x").searchParams.get("filters") ?? "";
      // The server's answer to `title->>ru isEmpty` and `title->>en isNotEmpty`.
      return reply(200, { data: filters.includes("title->>ru") ? [rows[1]] : rows });
    });
    renderTable(widget);
    const row = (text: string) => screen.getByRole("cell", { name: text }).closest("tr") as HTMLElement;
    await screen.findByRole("cell", { name: "English only" });
    expect(within(row("English only")).getByTestId("missing-language")).toHaveTextContent("missing ru");
    expect(within(row("English only")).getByTestId("missing-language")).toHaveAttribute("title", "No ru text in: title");
    expect(within(row("Russian only")).getByTestId("missing-language")).toHaveTextContent("missing en");
    expect(within(row("Both")).queryByTestId("missing-language")).toBeNull();
    const filter = screen.getByLabelText("Translations: widget");
    await userEvent.selectOptions(filter, "ru");
    await waitFor(() => expect(screen.queryByRole("cell", { name: "Both" })).toBeNull());
    expect(screen.getByRole("cell", { name: "English only" })).toBeInTheDocument();
    expect(screen.queryByRole("cell", { name: "Russian only" })).toBeNull();
    const asked = sent.map((x) => new URL(x.url, "http://x").searchParams.get("filters")).find((q) => q?.includes("isEmpty"));
    expect(JSON.parse(asked!)).toEqual({ and: [{ column: "title->>ru", method: "isEmpty" }, { column: "title->>en", method: "isNotEmpty" }] });
    expect(screen.queryByText("Filtered within this page")).toBeNull();
    await userEvent.selectOptions(filter, "");
    expect(screen.getByRole("cell", { name: "Both" })).toBeInTheDocument();
  });
});

describe("the 'missing' filter on the server", () => {
  const e = (fields: ReturnType<typeof f>[]) => ({ fields }) as unknown as EntityMeta;
  it("asks for the title lacking the language while the other has it", () => {
    const withTitle = e([f("slug", "text"), f("subtitle", "translations"), f("title", "translations")]);
    expect(missingConditions(withTitle, ["en", "ru"], "ru")).toEqual([
      { column: "title->>ru", method: "isEmpty" },
      { column: "title->>en", method: "isNotEmpty" },
    ]);
  });
  it("falls back to the page when the server cannot say it", () => {
    expect(missingConditions(e([f("description", "rich_text")]), ["en", "ru"], "ru")).toBeUndefined();
    expect(missingConditions(e([f("title", "translations")]), ["en", "ru", "de"], "ru")).toBeUndefined();
  });
});
