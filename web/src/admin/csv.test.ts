import type { EntityMeta } from "@/api/meta";
import { entityMeta, field as f } from "@/test-meta";
import { stubFetch, reply } from "@/test-fetch";
import { buildCsv, cellText, cellValue, checkRows, csvFilename, fetchAll, mapHeaders, parseCsv } from "./csv";

/** blog.article as `/api/meta` declares it (with the status the publish action looks for). */
const article: EntityMeta = entityMeta(
  "blog",
  "article",
  "articles",
  [
    f("id", "uuid", { required: true, serverOwned: true, default: { type: "newId" } }),
    f("createdAt", "timestamp", { required: true, serverOwned: true, default: { type: "now" } }),
    f("variant", "enum", { required: true, values: ["default", "overview-default"], default: { type: "text", value: "default" } }),
    f("adminTitle", "text", { required: true, maxLength: 500, default: { type: "randomTitle" } }),
    f("slug", "text", { required: true, unique: true, format: "slug", maxLength: 200, default: { type: "randomSlug" } }),
    f("className", "text", { maxLength: 10, default: { type: "none" } }),
    f("status", "enum", { required: true, values: ["draft", "published", "scheduled"], default: { type: "text", value: "draft" } }),
    f("title", "translations", { required: true, default: { type: "json", value: "{}" } }),
    f("description", "rich_text", { required: true, default: { type: "emptyDoc" } }),
    f("views", "int", { required: true, default: { type: "int", value: 0 } }),
    f("price", "decimal"),
    f("pinned", "bool", { required: true, default: { type: "bool", value: false } }),
    f("publishedAt", "timestamp"),
    f("authorId", "reference", { target: "rbac.subject" }),
    f("extra", "json"),
    f("code", "text", { required: true, maxLength: 20, default: { type: "none" } }),
  ],
  { listColumns: ["adminTitle", "slug", "title"] },
);

const id = (n: number) => `0191e6a4-0000-7000-8000-${String(n).padStart(12, "0")}`;

/** A record as the server answers it, with text that needs every kind of CSV quoting. */
function record(n: number): Record<string, unknown> {
  return {
    id: id(n),
    createdAt: `2025-01-0${(n % 9) + 1}T10:00:00.123456Z`,
    variant: n % 2 ? "default" : "overview-default",
    adminTitle: [`Article ${n}`, `"Quoted", with comma ${n}`, `Line one\nline two ${n}`, `  padded ${n}  `, `Ёлки ${n} 🌲`][n % 5],
    slug: `article-${n}`,
    className: n % 3 ? null : `c${n}`,
    status: ["draft", "published", "scheduled"][n % 3],
    title: { en: `Title ${n}, "the" one`, ru: n % 4 ? `Заголовок ${n}` : null },
    description: { en: { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: `Body ${n}\r\nwith CRLF` }] }] } },
    views: n * 7,
    price: n % 2 ? `${n}.50` : null,
    pinned: n % 5 === 0,
    publishedAt: n % 2 ? null : "2025-02-03T04:05:06Z",
    authorId: n % 2 ? id(9000 + n) : null,
    extra: n % 3 ? { tags: [`a${n}`, "b"], nested: { x: n } } : n % 2 ? [1, "two", null] : null,
    code: `=SUM(A${n})`,
  };
}

const editable = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== "id" && k !== "createdAt"));

describe("CSV export and re-import", () => {
  it("turns 1 000 exported records back into the same values (a round trip)", () => {
    const rows = Array.from({ length: 1000 }, (_, n) => record(n + 1));
    const text = buildCsv(article, rows);
    expect(text.split("\r\n")[0]).toBe("id,createdAt,variant,adminTitle,slug,className,status,title,description,views,price,pinned,publishedAt,authorId,extra,code");
    const parsed = parseCsv(`\uFEFF${text}`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rows).toHaveLength(1000);
    const { mapping, rows: checked } = checkRows(article, parsed);
    expect(mapping.ignored).toEqual([
      { header: "id", why: "server" },
      { header: "createdAt", why: "server" },
    ]);
    expect(checked.filter((r) => r.errors.length)).toEqual([]);
    expect(checked.map((r) => r.data)).toEqual(rows.map(editable));
    expect(checked[0]!.row).toBe(2);
    // The export of the re-imported values is the export of the originals, less the server's columns.
    expect(buildCsv(article, checked.map((r) => ({ ...r.data, id: rows[r.row - 2]!.id, createdAt: rows[r.row - 2]!.createdAt })))).toBe(text);
  });

  it("writes null as an empty cell, JSON fields as JSON and quotes what needs quoting", () => {
    const title = article.fields.find((x) => x.name === "title")!;
    expect(cellText(title, { en: "A" })).toBe('{"en":"A"}');
    expect(cellText(title, null)).toBe("");
    const csv = buildCsv(article, [{ ...record(2), adminTitle: 'a,"b"\nc' }]);
    expect(csv).toContain('"a,""b""\nc"');
  });

  it("names the file after the entity and the day", () => {
    expect(csvFilename(article, new Date("2025-03-04T12:00:00Z"))).toBe("blog.article-2025-03-04.csv");
  });

  it("reads every page of the table's search, order and filters, 100 rows a request", async () => {
    const sent = stubFetch((s) => {
      const offset = Number(new URL(s.url, "http://x").searchParams.get("offset"));
      const n = offset < 200 ? 100 : 37;
      return reply(200, { data: Array.from({ length: n }, (_, i) => record(offset + i + 1)) });
    });
    const seen: number[] = [];
    const rows = await fetchAll(article, { search: "tree", sort: { field: "slug", desc: true }, filters: { variant: "default" } }, (n) => seen.push(n));
    vi.unstubAllGlobals();
    expect(rows).toHaveLength(237);
    expect(seen).toEqual([100, 200, 237]);
    expect(sent).toHaveLength(3);
    const q = new URL(sent[2]!.url, "http://x").searchParams;
    expect(q.get("limit")).toBe("100");
    expect(q.has("count")).toBe(false);
    expect(q.get("offset")).toBe("200");
    expect(q.get("search")).toBe("tree");
    expect(JSON.parse(q.get("orderBy")!)).toEqual([{ column: "slug", method: "desc" }]);
    expect(JSON.parse(q.get("filters")!)).toEqual({ and: [{ column: "variant", method: "eq", value: "default" }] });
  });

  it("pages on with the server's cursor when it sends one, so exports go past 10 000 rows", async () => {
    const sent = stubFetch((s) => {
      const after = new URL(s.url, "http://x").searchParams.get("after");
      const from = after === null ? 0 : Number(after.slice(1));
      const n = from < 200 ? 100 : 37;
      return reply(200, { data: Array.from({ length: n }, (_, i) => record(from + i + 1)) }, n === 100 ? { "x-next-cursor": `c${from + 100}` } : {});
    });
    const rows = await fetchAll(article, {});
    vi.unstubAllGlobals();
    expect(rows).toHaveLength(237);
    const qs = sent.map((s) => new URL(s.url, "http://x").searchParams);
    expect(qs.map((q) => q.get("after"))).toEqual([null, "c100", "c200"]);
    expect(qs.every((q) => !q.has("offset") || q.get("offset") === "0")).toBe(true);
  });
});

describe("checking an import against the declaration", () => {
  const check = (csv: string, opts = {}) => checkRows(article, parseCsv(csv), opts);

  it("reports each bad cell by field and code, and keeps the good rows", () => {
    const csv = [
      "slug,adminTitle,variant,title,className,views,pinned,code,extra,authorId,publishedAt,price",
      'good-one,Good,default,"{""en"":""A""}",,3,true,X1,,,,',
      "Bad Slug,Bad,nope,not json,this is too long,1.5,maybe,X2,{broken,123,yesterday,12a",
      'good-two,Good 2,overview-default,"{""en"":""B"",""ru"":null}",c,0,0,X3,"[1,2]",,2025-01-01T00:00:00Z,2.25',
      'good-one,Dup,default,"[""x""]",,,,,,,,',
    ].join("\n");
    const { rows } = check(csv);
    expect(rows.map((r) => r.row)).toEqual([2, 3, 4, 5]);
    expect(rows[0]!.errors).toEqual([]);
    expect(rows[0]!.data).toEqual({ slug: "good-one", adminTitle: "Good", variant: "default", title: { en: "A" }, className: null, views: 3, pinned: true, code: "X1", extra: null, authorId: null, publishedAt: null, price: null });
    expect(rows[1]!.errors.map((e) => `${e.field}:${e.code}${e.detail ? `:${e.detail}` : ""}`)).toEqual([
      "slug:slug",
      "variant:enum:default, overview-default",
      "title:json",
      "className:maxLength:10",
      "views:int",
      "pinned:bool",
      "extra:json",
      "authorId:uuid",
      "publishedAt:date",
      "price:decimal",
    ]);
    expect(rows[2]!.errors).toEqual([]);
    expect(rows[2]!.data).toMatchObject({ title: { en: "B", ru: null }, extra: [1, 2], pinned: false, price: "2.25" });
    // A repeated unique value, a title that is not texts by language, and code (required, no default) left empty.
    expect(rows[3]!.errors.map((e) => `${e.field}:${e.code}`)).toEqual(["slug:duplicate", "title:object", "code:required"]);
  });

  it("leaves out empty cells of required fields with a default (the server fills them) and nulls optional ones", () => {
    const { rows } = check("slug,adminTitle,status,className,code\n,,,,K");
    expect(rows[0]!.errors).toEqual([]);
    expect(rows[0]!.data).toEqual({ className: null, code: "K" });
  });

  it("reports a required field without a default that no column fills, on every row", () => {
    const { mapping, rows } = check("slug\na\nb");
    expect(mapping.missing.map((m) => m.name)).toEqual(["code"]);
    expect(rows.every((r) => r.errors.some((e) => e.field === "code" && e.code === "required"))).toBe(true);
  });

  it("maps headers exactly, then without case; lists what it ignores and why", () => {
    const m = mapHeaders(article, ["ID", "Slug", "slug", "nonsense", "updatedAt", "CODE"]);
    expect(m.columns.map((c) => c?.name ?? null)).toEqual([null, "slug", null, null, null, "code"]);
    expect(m.ignored).toEqual([
      { header: "ID", why: "server" },
      { header: "slug", why: "duplicate" },
      { header: "nonsense", why: "unknown" },
      { header: "updatedAt", why: "unknown" },
    ]);
  });

  it("imports copies without the unique fields the server generates when asked", () => {
    const { mapping, rows } = check("slug,adminTitle,code\nsame,A,1\nsame,B,2", { regenerate: true });
    expect(mapping.ignored).toEqual([{ header: "slug", why: "generated" }]);
    expect(rows.map((r) => r.errors)).toEqual([[], []]);
    expect(rows[1]!.data).toEqual({ adminTitle: "B", code: "2" });
  });

  it("counts characters, not UTF-16 units, against the maximum length", () => {
    const className = article.fields.find((x) => x.name === "className")!;
    expect(cellValue(className, "🌲".repeat(10))).toEqual({ value: "🌲".repeat(10) });
    expect(cellValue(className, "🌲".repeat(11))).toEqual({ error: { field: "className", code: "maxLength", detail: "10" } });
  });

  it("reports an unreadable file with its row", () => {
    const p = parseCsv('a,b\n1,"unclosed\n');
    expect(p.problems.length).toBeGreaterThan(0);
    expect(p.problems[0]!.row).toBe(2);
  });
});
