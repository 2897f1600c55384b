import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { EntityMeta } from "@/api/meta";
import { reply, stubFetch } from "@/test-fetch";
import { field as f } from "@/test-meta";
import CsvImportDialog from "./csv-import";

const category: EntityMeta = {
  label: null,
  labelMany: null,
  group: null,
  rank: null,
  help: null,
  module: "blog",
  name: "category",
  route: "categories",
  path: "/api/blog/categories",
  kind: "model",
  table: "blog_category",
  titleField: "adminTitle",
  listColumns: ["slug"],
  variants: ["default"],
  ops: { create: true, update: true, delete: true, findOrCreate: true, bulk: true },
  referencedBy: [],
  fields: [
    f("id", "uuid", { required: true, serverOwned: true, default: { type: "newId" } }),
    f("slug", "text", { required: true, unique: true, format: "slug", maxLength: 200, default: { type: "randomSlug" } }),
    f("title", "translations", { required: true, default: { type: "json", value: "{}" } }),
  ],
};

describe("the CSV import dialog", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("previews the rows with their errors, sends nothing before the confirm, then imports the good rows and lists every failed one", async () => {
    // The server refuses one good-looking row (a slug taken already) by its index in the chunk.
    const sent = stubFetch((s) => {
      const items = s.body as { data: { slug: string } }[];
      const n = items.findIndex((i) => i.data.slug === "taken");
      if (n >= 0) return reply(409, { status: 409, code: "conflict", error: "conflict", fields: { [`[${n}].slug`]: ["is already used"] } });
      return reply(201, { data: items.map((i, k) => ({ id: String(k), ...i.data })) });
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <CsvImportDialog entity={category} open onOpenChange={() => undefined} />
      </QueryClientProvider>,
    );
    const dialog = screen.getByRole("dialog", { name: "Import blog.category from CSV" });
    const csv = ["id,slug,title", 'x,one,"{""en"":""One""}"', "x,Bad Slug,{}", "x,two,not json", "x,taken,{}", 'x,three,"{""en"":1}"', "x,four,{}"].join("\n");
    await userEvent.upload(within(dialog).getByLabelText("CSV file"), new File([csv], "categories.csv", { type: "text/csv" }));

    expect(await within(dialog).findByTestId("csv-valid")).toHaveTextContent("3 rows ready to import");
    expect(within(dialog).getByTestId("csv-invalid")).toHaveTextContent("3 rows with errors will be skipped");
    expect(within(dialog).getByText(/Columns not imported: id \(set by the server\)/)).toBeInTheDocument();
    const bad = within(dialog).getAllByRole("row").filter((r) => r.dataset.invalid);
    expect(bad.map((r) => r.textContent)).toEqual([
      expect.stringContaining("3slug use lower-case letters, digits, - and _"),
      expect.stringContaining("4title is not valid JSON"),
      expect.stringContaining("6title must be a JSON object of texts by language"),
    ]);
    expect(sent).toEqual([]);

    await userEvent.click(within(dialog).getByRole("button", { name: "Import 3 rows" }));
    expect(await within(dialog).findByTestId("csv-imported")).toHaveTextContent("Imported 2 rows.");
    expect(within(dialog).getByTestId("csv-failed").textContent).toBe(
      ["Row 3: slug use lower-case letters, digits, - and _", "Row 4: title is not valid JSON", "Row 5: slug is already used", "Row 6: title must be a JSON object of texts by language"].join(""),
    );
    expect(sent.map((s) => (s.body as { data: { slug: string } }[]).map((i) => i.data.slug))).toEqual([
      ["one", "taken", "four"],
      ["one", "four"],
    ]);
    expect(sent[0]).toMatchObject({ method: "POST", url: "/api/blog/categories/bulk" });
  });
});
