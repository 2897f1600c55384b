import { catalogueProblems, missingPluralForms, type Tree, untranslated } from "@/i18n/catalogue-checks";
import { widgetsEn, widgetsRu } from "./widgets-i18n";

// Checked as the app's own catalogues are (src/i18n/catalogues.test.ts).
describe("the words of the public widgets", () => {
  it("exist in en and ru with the same keys, no empty value and the same interpolations", () => {
    expect(catalogueProblems({ en: widgetsEn as Tree, ru: widgetsRu as Tree })).toEqual([]);
  });

  it("leave no English in the Russian words", () => {
    expect(untranslated(widgetsEn as Tree, widgetsRu as Tree, new Set())).toEqual({ same: [], stale: [] });
  });

  it("give every plural key the four forms the translator picks from", () => {
    expect(missingPluralForms(widgetsEn as Tree, widgetsRu as Tree)).toEqual([]);
  });
});
