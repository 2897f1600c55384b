import { auditFilters, diffRows, isoToLocal, localToIso, parseActor, redactedFields, showValue, truncate } from "./audit-diff";

const LANGS = ["ru", "en"];

describe("the audit diff", () => {
  it("gives a changed text field one row, before and after", () => {
    expect(diffRows({ title: { before: "Главная", after: "Home 2" } }, LANGS)).toEqual([{ field: "title", before: "Главная", after: "Home 2" }]);
  });

  it("leaves out fields whose values did not change", () => {
    expect(diffRows({ slug: { before: "a", after: "a" }, n: { before: 1, after: 2 } }, LANGS)).toEqual([{ field: "n", before: "1", after: "2" }]);
  });

  it("splits translations per language, only the languages that changed, in the site's order", () => {
    const rows = diffRows({ title: { before: { en: "Tree", ru: "Дерево" }, after: { en: "Two trees", ru: "Дерево", de: "Baum" } } }, ["ru", "en", "de"]);
    expect(rows).toEqual([
      { field: "title", lang: "en", before: "Tree", after: "Two trees" },
      { field: "title", lang: "de", before: "", after: "Baum" },
    ]);
  });

  it("reads a created record's translations (before null) per language", () => {
    expect(diffRows({ title: { before: null, after: { en: "Draft art" } } }, LANGS)).toEqual([{ field: "title", lang: "en", before: "", after: "Draft art" }]);
  });

  it("uses the declared kind when given: a JSON object keyed like languages stays one JSON row", () => {
    const changes = { options: { before: { en: 1 }, after: { en: 2 } } };
    expect(diffRows(changes, LANGS, () => "json")).toEqual([{ field: "options", before: '{"en":1}', after: '{"en":2}' }]);
    expect(diffRows(changes, LANGS)).toEqual([{ field: "options", lang: "en", before: "1", after: "2" }]);
  });

  it("shows rich text as its text and drops empty documents that say nothing", () => {
    const doc = (text?: string) => ({ type: "doc", content: [{ type: "paragraph", content: text ? [{ type: "text", text }] : undefined }] });
    expect(showValue(doc("Hello"))).toBe("Hello");
    const rows = diffRows({ description: { before: null, after: { en: doc(), ru: doc("Привет") } } }, LANGS, () => "translations");
    expect(rows).toEqual([{ field: "description", lang: "ru", before: "", after: "Привет" }]);
  });

  it("reads nothing from a malformed entry", () => {
    expect(diffRows(null, LANGS)).toEqual([]);
    expect(diffRows({ x: "not a change" }, LANGS)).toEqual([]);
    expect(redactedFields("password")).toEqual([]);
    expect(redactedFields(["password", 3])).toEqual(["password"]);
  });

  it("cuts long values at a word and says so", () => {
    expect(truncate("short")).toEqual({ text: "short", cut: false });
    const long = "word ".repeat(60);
    const cut = truncate(long, 50);
    expect(cut.cut).toBe(true);
    expect(cut.text.endsWith("word…")).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(51);
    expect(truncate("x".repeat(200), 10)).toEqual({ text: `${"x".repeat(10)}…`, cut: true });
  });

  it("names who wrote an entry", () => {
    expect(parseActor("subject:0190-ab")).toEqual({ kind: "subject", id: "0190-ab" });
    expect(parseActor("secret-key")).toEqual({ kind: "secret-key" });
    expect(parseActor("job:platform.publish")).toEqual({ kind: "job", name: "platform.publish" });
    expect(parseActor("system")).toEqual({ kind: "system", raw: "system" });
  });

  it("builds the list's filters from what is chosen", () => {
    expect(auditFilters({})).toEqual([]);
    expect(auditFilters({ subject: "s", entity: "host.page", record: "r", action: "update", from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" })).toEqual([
      { column: "subjectId", method: "eq", value: "s" },
      { column: "entity", method: "eq", value: "host.page" },
      { column: "recordId", method: "eq", value: "r" },
      { column: "action", method: "eq", value: "update" },
      { column: "createdAt", method: "gte", value: "2026-01-01T00:00:00.000Z" },
      { column: "createdAt", method: "lte", value: "2026-02-01T00:00:00.000Z" },
    ]);
  });

  it("converts between datetime-local values and instants both ways", () => {
    const iso = localToIso("2026-11-24T10:30");
    expect(iso).toBe(new Date(2026, 10, 24, 10, 30).toISOString());
    expect(isoToLocal(iso)).toBe("2026-11-24T10:30");
    expect(localToIso("")).toBeUndefined();
    expect(localToIso("nonsense")).toBeUndefined();
    expect(isoToLocal(null)).toBe("");
  });
});
