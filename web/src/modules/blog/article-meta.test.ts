import type { Rec } from "@/site/content";
import { authorOf, cardLayout, formatDate, idTime, listedArticles, newestFirst, orderedArticles, parseTime, plainText, publishedAt, readingMinutes, relatedArticles, titledIn, wordCount } from "./article-meta";

const article = (id: string, extra: Partial<Rec> = {}): Rec => ({ id, _entity: "blog.article", slug: id, ...extra });
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
const doc = (...paragraphs: string[]) => ({ type: "doc", content: paragraphs.map((text) => ({ type: "paragraph", content: [{ type: "text", text }] })) });
const cover = { _rel: { "articles-to-file-storage-module-files": [{ id: "l", _entity: "blog.articles-to-file-storage-module-files", _to: { id: "f", _entity: "file-storage.file", file: "demo/a.svg" } }] } };
const ids = (rs: Rec[]) => rs.map((r) => r.id);

describe("reading time", () => {
  it("counts the words of a rich-text document or a plain string, not punctuation", () => {
    expect(plainText(doc("one two", "three"))).toBe("one two three");
    expect(wordCount("Лес — это дом, 12 000 деревьев.")).toBe(6);
    expect(wordCount("   ")).toBe(0);
  });

  it("is the body's words over the language's reading speed, rounded up, at least one minute", () => {
    expect(readingMinutes(article("a"), "en")).toBe(1);
    expect(readingMinutes(article("a", { description: { en: words(220) } }), "en")).toBe(1);
    expect(readingMinutes(article("a", { description: { en: words(221) } }), "en")).toBe(2);
    expect(readingMinutes(article("a", { description: { en: doc(words(1000), words(100)) } }), "en")).toBe(5);
    // Russian is read slower: the same 1100 words take longer.
    expect(readingMinutes(article("a", { description: { ru: doc(words(1100)) } }), "ru")).toBe(7);
  });

  it("reads the page's language of the body", () => {
    const a = article("a", { description: { ru: words(900), en: words(10) } });
    expect(readingMinutes(a, "ru")).toBe(5);
    expect(readingMinutes(a, "en")).toBe(1);
  });
});

describe("publication date", () => {
  it("is publishAt, else createdAt", () => {
    expect(publishedAt(article("a", { publishAt: "2026-03-01T10:00:00Z", createdAt: "2026-01-01T00:00:00Z" }))).toBe("2026-03-01T10:00:00Z");
    expect(publishedAt(article("a", { publishAt: null, createdAt: "2026-01-01T00:00:00Z" }))).toBe("2026-01-01T00:00:00Z");
    expect(publishedAt(article("a", { createdAt: "not a date" }))).toBeNull();
    // The page's embedded bundle has no timestamps: a UUID v7 id carries the creation time.
    expect(publishedAt(article("01a2258b-409d-7256-8087-d3b9f2e054c9"))).toBe("2026-11-29T04:23:32.765Z");
    expect(idTime("01a2258b-409d-4256-8087-d3b9f2e054c9")).toBeNull();
  });

  it("reads the server's timestamps exactly, microseconds and offsets included", () => {
    expect(parseTime("2026-11-29T04:23:32.765322Z")).toBe(Date.UTC(2026, 10, 29, 4, 23, 32, 765));
    expect(parseTime("2026-03-01T00:30:00+03:00")).toBe(Date.UTC(2026, 1, 28, 21, 30));
    expect(parseTime("2026-03-01")).toBe(Date.UTC(2026, 2, 1));
    expect(parseTime("yesterday")).toBeNull();
    expect(publishedAt(article("a", { createdAt: "2026-11-29T04:23:32.765322Z" }))).toBe("2026-11-29T04:23:32.765322Z");
  });

  it("is written in the page's language, on the UTC day", () => {
    expect(formatDate("2026-11-29T20:30:00Z", "ru")).toBe("29 ноября 2026");
    expect(formatDate("2026-11-29T20:30:00Z", "en")).toBe("29 November 2026");
    expect(formatDate("2026-03-01T00:30:00+03:00", "en")).toBe("28 February 2026");
    expect(formatDate("nonsense", "en")).toBe("");
    expect(formatDate("2026-11-29T04:23:32.765322Z", "ru")).toBe("29 ноября 2026");
  });
});

describe("author", () => {
  it("is a name when the record has one, else nothing (never an id)", () => {
    expect(authorOf(article("a"), "en")).toBe("");
    expect(authorOf(article("a", { author: { ru: "Анна", en: "Anna" } }), "en")).toBe("Anna");
    expect(authorOf(article("a", { author: { id: "p1", _entity: "social.profile", title: { ru: "Анна" } } }), "ru")).toBe("Анна");
  });
});

describe("ordering", () => {
  const old = article("old", { createdAt: "2026-01-01T00:00:00Z" });
  const mid = article("mid", { createdAt: "2026-01-02T00:00:00Z", publishAt: "2026-02-01T00:00:00Z" });
  const fresh = article("fresh", { createdAt: "2026-03-01T00:00:00Z" });
  const undated = article("undated");

  it("lists every article newest first by publication date, undated last", () => {
    expect(ids(newestFirst([old, undated, fresh, mid]))).toEqual(["fresh", "mid", "old", "undated"]);
  });

  it("keeps an editor's order of linked articles, newest first among equal indexes", () => {
    const row = (to: Rec, orderIndex: number) => ({ id: `r-${to.id}`, _entity: "blog.widgets-to-articles", orderIndex, _to: to });
    expect(ids(orderedArticles([row(old, 0), row(fresh, 0), row(mid, 0)]))).toEqual(["fresh", "mid", "old"]);
    expect(ids(orderedArticles([row(fresh, 2), row(old, 1), row(mid, 1)]))).toEqual(["mid", "old", "fresh"]);
  });

  it("takes a list widget's linked articles when it has some, else its whole list newest first", () => {
    const widget = (extra: Partial<Rec>): Rec => ({ id: "w", _entity: "blog.widget", variant: "article-list-default", ...extra });
    expect(ids(listedArticles(widget({ _list: [old, fresh, mid] })))).toEqual(["fresh", "mid", "old"]);
    const picked = widget({ _list: [old, fresh], _rel: { "widgets-to-articles": [{ id: "1", _entity: "x", orderIndex: 0, _to: old }, { id: "2", _entity: "x", orderIndex: 1, _to: fresh }] } });
    expect(ids(listedArticles(picked))).toEqual(["old", "fresh"]);
    expect(listedArticles(widget({}))).toEqual([]);
  });
});

describe("card layout", () => {
  it("is a cover card with an image and compact without one", () => {
    expect(cardLayout(article("a", cover))).toBe("cover");
    expect(cardLayout(article("a"))).toBe("compact");
  });
});

describe("related articles", () => {
  const a = (id: string, day: number) => article(id, { createdAt: `2026-01-${String(day).padStart(2, "0")}T00:00:00Z` });

  it("are the current article's category first, newest first, then the newest others, without the article or repeats", () => {
    const sameCategory = [a("s1", 1), a("s2", 5)];
    const newest = [a("cur", 9), a("n1", 8), a("s2", 5), a("n2", 3)];
    expect(ids(relatedArticles("cur", sameCategory, newest))).toEqual(["s2", "s1", "n1"]);
    expect(ids(relatedArticles("cur", [], newest, 2))).toEqual(["n1", "s2"]);
    expect(relatedArticles("cur", [], [a("cur", 1)])).toEqual([]);
  });

  it("leaves out what cannot be shown and takes the next one instead", () => {
    const newest = [a("n1", 8), a("n2", 5), a("n3", 3), a("n4", 2)];
    expect(ids(relatedArticles("cur", [], newest, 2, (r) => r.id !== "n1"))).toEqual(["n2", "n3"]);
  });

  it("counts an article as titled when the page shows it a title with words in it", () => {
    const ru = titledIn("ru");
    expect(ru({ _entity: "blog.article", id: "a", title: { ru: "Лес", en: "Forest" } })).toBe(true);
    expect(ru({ _entity: "blog.article", id: "b", title: { en: "Forest" } })).toBe(true); // shown in the language it has
    expect(ru({ _entity: "blog.article", id: "c", title: { ru: "  " } })).toBe(false);
    expect(ru({ _entity: "blog.article", id: "d", title: {} })).toBe(false);
    expect(ru({ _entity: "blog.article", id: "e" })).toBe(false);
  });
});
