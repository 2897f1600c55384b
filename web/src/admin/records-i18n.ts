// The words of the admin's record checks and readable records (validation messages, copy id,
// missing translations) in en and ru. Like `./i18n.ts`, they live beside the admin so they load
// with its lazy chunk, not with the public site's first-load JavaScript; keys under `records.`
// come from here, every other key (`errors.required`, `admin.invalidDate`) from the app's
// catalogues, in the app's current language.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const recordsEn: Catalogue = {
  records: {
    copyId: "Copy id",
    idCopied: "Id copied: {{id}}",
    copyFailed: "The id could not be copied",
    missing: "missing {{lang}}",
    missingIn: "No {{lang}} text in: {{fields}}",
    translationsFilter: "Translations",
    allTranslations: "All translations",
    filteredOnPage: "Filtered within this page",
    open: "Open {{name}}",
    view: "View",
    readOnly: "Kept by the site as it happened: it cannot be changed here.",
    check: {
      invalid: "This value is not accepted",
      slug: "Use lower-case Latin letters, digits, - and _",
      oneOf: "Choose one of: {{values}}",
      wholeNumber: "Enter a whole number",
      uuid: "Enter an id (UUID)",
      taken: "Already taken by another record; choose another",
      titleLanguage: "Enter the title in at least one language",
      publishAt: "Set the publication time of a scheduled record",
    },
  },
};

export const recordsRu: Catalogue = {
  records: {
    copyId: "Скопировать id",
    idCopied: "Id скопирован: {{id}}",
    copyFailed: "Не удалось скопировать id",
    missing: "нет {{lang}}",
    missingIn: "Нет текста на {{lang}}: {{fields}}",
    translationsFilter: "Переводы",
    allTranslations: "Все переводы",
    filteredOnPage: "Отфильтровано в пределах этой страницы",
    open: "Открыть {{name}}",
    view: "Открыть",
    readOnly: "Сайт хранит это так, как было: здесь это не изменить.",
    check: {
      invalid: "Это значение не подходит",
      slug: "Только строчные латинские буквы, цифры, - и _",
      oneOf: "Выберите одно из: {{values}}",
      wholeNumber: "Введите целое число",
      uuid: "Введите id (UUID)",
      taken: "Уже занято другой записью; выберите другое значение",
      titleLanguage: "Укажите заголовок хотя бы на одном языке",
      publishAt: "Укажите время публикации отложенной записи",
    },
  },
};

const records = chunkCatalogue("records", recordsEn, recordsRu);

/** `t` in `lang`: `records.*` from this catalogue, the rest from the app's. */
export const recordsT: (lang: string) => TFunction = records.at;

/** `recordsT` in the app's current language (re-renders when it changes). */
export const useRecordsT: () => TFunction = records.useT;
