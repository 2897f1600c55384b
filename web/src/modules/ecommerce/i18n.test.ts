import { catalogueProblems, missingPluralForms, type Tree, untranslated } from "@/i18n/catalogue-checks";
import { shopEn, shopRu, shopT } from "./i18n";

describe("the shop's catalogue", () => {
  it("has the same keys in en and ru, none empty, none left in English", () => {
    expect(catalogueProblems({ en: shopEn as Tree, ru: shopRu as Tree })).toEqual([]);
    expect(untranslated(shopEn as Tree, shopRu as Tree, new Set())).toEqual({ same: [], stale: [] });
    expect(missingPluralForms(shopEn as Tree, shopRu as Tree)).toEqual([]);
  });

  it("answers its own keys and hands the rest to the app's", () => {
    expect(shopT("ru")("shop.orderNumber", { number: 7 })).toBe("Заказ № 7");
    expect(shopT("en")("commerce.status.approving")).toBe("Paid");
  });
});
