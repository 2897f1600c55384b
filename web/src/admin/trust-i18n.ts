// The words of the admin's audit log, record history and drafts (publish, schedule, preview) in
// en and ru. Like `./i18n.ts`, they live beside the admin so they load with its lazy chunk, not
// with the public site's first-load JavaScript; keys under `trust.` come from here, every other
// key from the app's catalogues, in the app's current language.
import i18n, { useTranslation } from "@/i18n";
import { type Catalogue, type TFunction, Translator } from "@/lib/translate";

/** The four plural forms `t` picks from by `count` (Russian's few and many read as the other). */
function plural(key: string, one: string, few: string, many: string, other: string): Record<string, string> {
  return { [`${key}_one`]: one, [`${key}_few`]: few, [`${key}_many`]: many, [`${key}_other`]: other };
}

export const trustEn: Catalogue = {
  trust: {
    audit: {
      title: "Audit log",
      help: "Every change made by admins and every account-security event, newest first.",
      filters: "Filters",
      person: "Person",
      personHelp: "Type an email to find a person",
      personNone: "No one found",
      anyone: "Anyone",
      entity: "Entity",
      anyEntity: "Any entity",
      action: "Action",
      anyAction: "Any action",
      from: "From",
      to: "To",
      record: "Record",
      clear: "Clear filters",
      removeFilter: "Remove filter: {{name}}",
      when: "When",
      who: "Who",
      what: "What",
      ip: "IP",
      details: "Details",
      show: "Show the changes of {{name}}",
      hide: "Hide the changes of {{name}}",
      onlyThis: "Show only {{name}}",
      pages: "Audit log pages",
      ...plural("entries", "{{formatted}} entry", "{{formatted}} entries", "{{formatted}} entries", "{{formatted}} entries"),
      none: "No entries match these filters.",
      userAgent: "Device",
      requestId: "Request id",
      openRecord: "Open the record",
      secretKey: "Secret key",
      system: "System",
      job: "Job {{name}}",
    },
    actions: {
      create: "Created",
      update: "Updated",
      delete: "Deleted",
      restore: "Restored",
      event: "Event",
    },
    diff: {
      field: "Field",
      before: "Before",
      after: "After",
      empty: "—",
      hidden: "changed (hidden)",
      more: "Show all",
      less: "Show less",
      nothing: "No field changed.",
      caption: "Changed fields",
    },
    history: {
      tab: "History",
      record: "Record",
      title: "History of this record",
      none: "No changes recorded yet.",
      restore: "Restore this version",
      restoreQuestion: "Restore the record as it was after this change? The current values are replaced (and the restore is recorded).",
      restored: "Restored the version of {{when}}",
      openAudit: "Open in the audit log",
      more: "Load older changes",
      current: "Current version",
    },
    enrol: {
      title: "Turn on two-factor sign-in first",
      body: "This site requires administrators to sign in with a code from an authenticator app. Set it up in your account's security settings; the admin opens once it is on.",
      link: "Open security settings",
    },
    status: {
      draft: "Draft",
      published: "Published",
      scheduled: "Scheduled",
      scheduledFor: "Scheduled for {{when}}",
      label: "Status",
    },
    publish: {
      publish: "Publish",
      published: "Published",
      unpublish: "Back to draft",
      drafted: "Now a draft",
      schedule: "Schedule…",
      scheduleTitle: "Schedule publication",
      scheduleHelp: "The record stays hidden from visitors until this time, then it is published.",
      at: "Publish at",
      scheduleConfirm: "Schedule",
      scheduled: "Scheduled for {{when}}",
      cancel: "Cancel",
      past: "Choose a time in the future",
      saveFirst: "Save your changes first",
      withWidgets: "Publish with widgets",
      widgetsDraft: "This page shows widgets that are not published: {{names}}",
      preview: "Preview",
      previewHint: "Opens the public page with the drafts shown, in a new tab",
      noPage: "No public page shows this record: add a page whose URL has {{token}}",
      templatePage: "This page's URL is a template: preview one of its records instead",
      widgetNoPage: "No page shows this widget",
      looking: "Looking for the page…",
    },
  },
};

export const trustRu: Catalogue = {
  trust: {
    audit: {
      title: "Журнал изменений",
      help: "Все изменения, сделанные администраторами, и события безопасности аккаунтов, сначала новые.",
      filters: "Фильтры",
      person: "Человек",
      personHelp: "Введите email, чтобы найти человека",
      personNone: "Никого не найдено",
      anyone: "Кто угодно",
      entity: "Сущность",
      anyEntity: "Любая сущность",
      action: "Действие",
      anyAction: "Любое действие",
      from: "С",
      to: "По",
      record: "Запись",
      clear: "Сбросить фильтры",
      removeFilter: "Убрать фильтр: {{name}}",
      when: "Когда",
      who: "Кто",
      what: "Что",
      ip: "IP-адрес",
      details: "Подробности",
      show: "Показать изменения: {{name}}",
      hide: "Скрыть изменения: {{name}}",
      onlyThis: "Показать только: {{name}}",
      pages: "Страницы журнала",
      ...plural("entries", "{{formatted}} запись", "{{formatted}} записи", "{{formatted}} записей", "{{formatted}} записи"),
      none: "Нет записей под эти фильтры.",
      userAgent: "Устройство",
      requestId: "Id запроса",
      openRecord: "Открыть запись",
      secretKey: "Секретный ключ",
      system: "Система",
      job: "Задача {{name}}",
    },
    actions: {
      create: "Создано",
      update: "Изменено",
      delete: "Удалено",
      restore: "Восстановлено",
      event: "Событие",
    },
    diff: {
      field: "Поле",
      before: "Было",
      after: "Стало",
      empty: "—",
      hidden: "изменено (скрыто)",
      more: "Показать полностью",
      less: "Свернуть",
      nothing: "Ни одно поле не изменилось.",
      caption: "Изменённые поля",
    },
    history: {
      tab: "История",
      record: "Запись",
      title: "История этой записи",
      none: "Изменений пока нет.",
      restore: "Восстановить эту версию",
      restoreQuestion: "Вернуть запись в состояние после этого изменения? Текущие значения будут заменены (восстановление тоже попадёт в журнал).",
      restored: "Восстановлена версия от {{when}}",
      openAudit: "Открыть в журнале изменений",
      more: "Загрузить более ранние изменения",
      current: "Текущая версия",
    },
    enrol: {
      title: "Сначала включите двухфакторный вход",
      body: "На этом сайте администраторы входят с кодом из приложения-аутентификатора. Настройте его в разделе безопасности аккаунта; админка откроется, как только он будет включён.",
      link: "Открыть настройки безопасности",
    },
    status: {
      draft: "Черновик",
      published: "Опубликовано",
      scheduled: "Запланировано",
      scheduledFor: "Запланировано на {{when}}",
      label: "Статус",
    },
    publish: {
      publish: "Опубликовать",
      published: "Опубликовано",
      unpublish: "Вернуть в черновики",
      drafted: "Теперь это черновик",
      schedule: "Запланировать…",
      scheduleTitle: "Запланировать публикацию",
      scheduleHelp: "До этого времени запись скрыта от посетителей, затем она будет опубликована.",
      at: "Опубликовать в",
      scheduleConfirm: "Запланировать",
      scheduled: "Запланировано на {{when}}",
      cancel: "Отмена",
      past: "Выберите время в будущем",
      saveFirst: "Сначала сохраните изменения",
      withWidgets: "Опубликовать вместе с виджетами",
      widgetsDraft: "На этой странице есть неопубликованные виджеты: {{names}}",
      preview: "Предпросмотр",
      previewHint: "Открывает публичную страницу с черновиками в новой вкладке",
      noPage: "Эту запись не показывает ни одна публичная страница: добавьте страницу, в адресе которой есть {{token}}",
      templatePage: "Адрес этой страницы — шаблон: откройте предпросмотр одной из её записей",
      widgetNoPage: "Этот виджет не показан ни на одной странице",
      looking: "Ищем страницу…",
    },
  },
};

const trust = new Translator({ en: trustEn, ru: trustRu }, "en", "en");
const bound = new Map<string, TFunction>();

/** `t` in `lang`: `trust.*` from this catalogue, the rest from the app's. */
export function trustT(lang: string): TFunction {
  let t = bound.get(lang);
  if (!t) {
    const own = trust.getFixedT(lang);
    const app = i18n.getFixedT(lang);
    t = (key, options) => (key.startsWith("trust.") ? own(key, options) : app(key, options));
    bound.set(lang, t);
  }
  return t;
}

/** `trustT` in the app's current language (re-renders when it changes). */
export function useTrustT(): TFunction {
  const { i18n: app } = useTranslation();
  return trustT(app.language);
}
