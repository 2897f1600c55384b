import { freeSlug, isAdvanced, slugFrom, titleText } from "./derive";

describe("what a new record's names are made from", () => {
  it("makes a slug of a title, Cyrillic transliterated, within the length", () => {
    expect(slugFrom("Привет, мир! Ёлка и щука")).toBe("privet-mir-yolka-i-schuka");
    expect(slugFrom("Hello World — 2026")).toBe("hello-world-2026");
    expect(slugFrom("camelCase Title")).toBe("camelcase-title");
    expect(slugFrom("   ")).toBe("");
    expect(slugFrom("Донаты для планеты", 10)).toBe("donaty-dly");
    expect(slugFrom("abc def", 4)).toBe("abc");
  });

  it("takes the title in the first language that has one", () => {
    expect(titleText({ title: { en: "", ru: " Мир " } }, ["en", "ru"])).toBe("Мир");
    expect(titleText({ title: { ru: "Мир", en: "World" } }, ["en", "ru"])).toBe("World");
    expect(titleText({ title: { de: "Welt" } }, ["en", "ru"])).toBe("Welt");
    expect(titleText({ title: "Plain" }, ["en"])).toBe("Plain");
    expect(titleText({}, ["en"])).toBe("");
  });

  it("takes the first free slug of base, base-2, base-3", async () => {
    const taken = new Set(["plant", "plant-2"]);
    const asked: string[] = [];
    const free = await freeSlug("plant", async (s) => (asked.push(s), taken.has(s)));
    expect(free).toBe("plant-3");
    expect(asked).toEqual(["plant", "plant-2", "plant-3"]);
    expect(await freeSlug("abcdef", async (s) => s === "abcdef", 6)).toBe("abcd-2");
  });

  it("keeps the technical fields under Advanced", () => {
    // As the content model declares them (`/api/meta`), not by name.
    expect(isAdvanced({ advanced: true })).toBe(true);
    expect(isAdvanced({ advanced: false })).toBe(false);
  });
});
