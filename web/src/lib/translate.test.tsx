import { act, render, screen } from "@testing-library/react";
import { Translator, translationHook } from "./translate";

const en = { a: { hello: "Hello, {{name}}", files_one: "{{count}} file", files_other: "{{count}} files", only: "English only" } };
const ru = { a: { hello: "Привет, {{ name }}", files_one: "{{count}} файл", files_few: "{{count}} файла", files_many: "{{count}} файлов", files_other: "{{count}} файла" } };

describe("Translator", () => {
  it("interpolates, picks plural forms by the language, falls back to English, then the default, then the key", () => {
    const i18n = new Translator({ en, ru }, "ru", "en");
    expect(i18n.t("a.hello", { name: "Аня" })).toBe("Привет, Аня");
    expect([1, 3, 5, 21].map((count) => i18n.t("a.files", { count }))).toEqual(["1 файл", "3 файла", "5 файлов", "21 файл"]);
    expect(i18n.t("a.only")).toBe("English only");
    expect(i18n.t("a.missing", { defaultValue: "paid" })).toBe("paid");
    expect(i18n.t("a.missing")).toBe("a.missing");
    expect(i18n.t("a")).toBe("a");
    expect(i18n.t("a.hello")).toBe("Привет, {{ name }}");
    expect(i18n.getFixedT("en")("a.files", { count: 2 })).toBe("2 files");
  });

  it("re-renders on a change of language, with a new t", async () => {
    const i18n = new Translator({ en, ru }, "en", "en");
    const useTranslation = translationHook(i18n);
    const seen = new Set<unknown>();
    function Hello() {
      const { t } = useTranslation();
      seen.add(t);
      return <p>{t("a.hello", { name: "Ann" })}</p>;
    }
    render(<Hello />);
    expect(screen.getByText("Hello, Ann")).toBeInTheDocument();
    await act(() => i18n.changeLanguage("ru"));
    expect(screen.getByText("Привет, Ann")).toBeInTheDocument();
    expect(seen.size).toBe(2);
  });
});
