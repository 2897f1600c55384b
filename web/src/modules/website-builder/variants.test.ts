import type { Rec } from "@/site/content";
import { campaignOf, DEFAULT_CAMPAIGN, logoFile } from "./variants";

const widget = (options?: unknown): Rec => ({ id: "w", _entity: "website-builder.widget", variant: "content-block-for-planet-target", ...(options === undefined ? {} : { options }) });

describe("campaignOf", () => {
  it("reads the goal and the offset from the widget's options", () => {
    expect(campaignOf(widget({ goal: 500_000, offset: 1_200 }))).toEqual({ goal: 500_000, offset: 1_200 });
  });

  it("falls back to the default campaign for what the data lacks or gets wrong", () => {
    expect(DEFAULT_CAMPAIGN).toEqual({ goal: 1_000_000, offset: 66_713 });
    expect(campaignOf(widget())).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget(null))).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget({ goal: 0, offset: -1 }))).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget({ goal: "1000", offset: 5 }))).toEqual({ goal: 1_000_000, offset: 5 });
  });
});

describe("logoFile", () => {
  const file = (id: string, alt: string): Rec => ({ id, _entity: "file-storage.file", file: `demo/${id}.svg`, alt });
  const logo = (files: [Rec, string?][]): Rec => ({
    id: "l",
    _entity: "website-builder.logotype",
    title: { ru: "для планеты", en: "for planet" },
    _rel: { "logotypes-to-file-storage-module-files": files.map(([f, variant], i) => ({ id: `r${i}`, _entity: "rel", variant: variant ?? "default", _to: f })) },
  });

  it("takes the image whose words are the page's language", () => {
    const en = file("logo", "for planet");
    expect(logoFile(logo([[en]]), "en")).toBe(en);
  });

  it("has none for a page in another language than the image's words: the title is set as text", () => {
    expect(logoFile(logo([[file("logo", "for planet")]]), "ru")).toBeUndefined();
  });

  it("takes an image linked for the page's language first", () => {
    const en = file("logo", "for planet");
    const ru = file("logo-ru", "для планеты");
    expect(logoFile(logo([[en], [ru, "ru"]]), "ru")).toBe(ru);
    expect(logoFile(logo([[en], [ru, "ru"]]), "en")).toBe(en);
  });

  it("keeps an image without words of a language (a mark, an alt that is not a title)", () => {
    const mark = file("mark", "A green circle with a tree");
    expect(logoFile(logo([[mark]]), "ru")).toBe(mark);
    const bare = file("bare", "");
    expect(logoFile(logo([[bare]]), "ru")).toBe(bare);
  });
});
