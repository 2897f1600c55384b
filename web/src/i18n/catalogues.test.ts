import { en } from "./en";
import { ru } from "./ru";
import { catalogueProblems, type Tree, untranslated } from "./catalogue-checks";

/**
 * Russian values that are the English text on purpose (names, brands, codes, the word Email as
 * Russian interfaces use it). Anything else equal in both is an English string on Russian pages.
 */
const SAME_IN_BOTH = new Set([
  "login.email",
  "orders.email",
  "orders.numbered",
  "media.pdf",
  "chat.reaction",
  "commerce.providers.cloudpayments",
  "commerce.providers.tiptoppay",
  "commerce.providers.stripe",
  "commerce.providers.payselection",
  "commerce.providers.payselection-international",
  "commerce.providers.paykeeper",
  "commerce.providers.0xprocessing",
  "notifications.methods.telegram",
  "admin.languageNames.ru",
  "admin.languageNames.en",
  "admin.idColumn",
]);

describe("the i18n catalogues", () => {
  it("have the same keys, deep, in both directions, and no empty value", () => {
    expect(catalogueProblems({ en: en as Tree, ru: ru as unknown as Tree })).toEqual([]);
  });

  it("catch a key that exists in one language only, at any depth, and an empty value", () => {
    const problems = catalogueProblems({
      en: { a: "A", nested: { b: "B", only: "x" }, c: "C" },
      ru: { a: "А", nested: { b: "" }, extra: { deep: "Д" }, c: "{{n}} С" },
    });
    expect(problems).toEqual([
      "c: interpolations differ (en: none; ru: n)",
      "extra.deep: missing in en (present in ru)",
      "nested.b: empty in ru",
      "nested.only: missing in ru (present in en)",
    ]);
  });

  it("have no English left in the Russian one except where it is deliberately the same", () => {
    const { same, stale } = untranslated(en as Tree, ru as unknown as Tree, SAME_IN_BOTH);
    expect(same).toEqual([]);
    expect(stale).toEqual([]);
  });
});
