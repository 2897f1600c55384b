// The words of the outgoing webhooks' admin panels in en and ru. They load with the admin's lazy
// chunk; keys under `hooks.` come from here, every other key from the app's catalogues.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const hooksEn: Catalogue = {
  hooks: {
    secret: "Signing secret",
    secretHelp: "Each request carries a Stoa-Signature header: t=<time>,v1=<HMAC-SHA256 of \"<time>.<body>\" with this secret>. Check it on the receiving side before trusting a request.",
    show: "Show the secret",
    hide: "Hide the secret",
    copy: "Copy",
    copied: "Secret copied",
    rotate: "Make a new secret",
    rotateConfirm: "The current secret stops working at once: the receiver must use the new one. Make a new secret?",
    rotateYes: "Yes, make a new one",
    cancel: "Cancel",
    rotated: "A new secret was made",
    test: "Send a test event",
    testHelp: "Sends a test event to this address now and shows what it answered. A test is never retried.",
    testDelivered: "Delivered: the address answered {{status}} in {{ms}} ms.",
    testFailed: "Not delivered: {{error}}",
    replay: "Send again",
    replayHelp: "Sends this event once more, with the same event id, after the deliveries waiting for its address.",
    replayed: "Queued to be sent again",
    openReplay: "Open the new delivery",
    body: "Body sent",
    failed: "That did not work; try again.",
    events: "Events you can subscribe to",
    eventsHelp: "Type the name on the right into Events. A name ending in * takes every event that starts so.",
    action: {
      created: "created",
      updated: "changed",
      deleted: "deleted",
      paid: "paid",
      "status-changed": "status changed",
      submitted: "submitted",
      registered: "registered",
    },
  },
};

export const hooksRu: Catalogue = {
  hooks: {
    secret: "Секрет подписи",
    secretHelp: "Каждый запрос несёт заголовок Stoa-Signature: t=<время>,v1=<HMAC-SHA256 от \"<время>.<тело>\" с этим секретом>. Проверяйте его на принимающей стороне, прежде чем доверять запросу.",
    show: "Показать секрет",
    hide: "Скрыть секрет",
    copy: "Копировать",
    copied: "Секрет скопирован",
    rotate: "Создать новый секрет",
    rotateConfirm: "Текущий секрет сразу перестанет действовать: приёмнику нужен будет новый. Создать новый секрет?",
    rotateYes: "Да, создать новый",
    cancel: "Отмена",
    rotated: "Новый секрет создан",
    test: "Отправить тестовое событие",
    testHelp: "Сразу отправляет на этот адрес тестовое событие и показывает ответ. Тест не повторяется.",
    testDelivered: "Доставлено: адрес ответил {{status}} за {{ms}} мс.",
    testFailed: "Не доставлено: {{error}}",
    replay: "Отправить ещё раз",
    replayHelp: "Отправляет это событие ещё раз, с тем же идентификатором, после доставок, ожидающих этот адрес.",
    replayed: "Поставлено в очередь на повторную отправку",
    openReplay: "Открыть новую доставку",
    body: "Отправленный текст",
    failed: "Не получилось; попробуйте ещё раз.",
    events: "События, на которые можно подписаться",
    eventsHelp: "Впишите название справа в поле «События». Название со * в конце берёт все события с таким началом.",
    action: {
      created: "создание",
      updated: "изменение",
      deleted: "удаление",
      paid: "оплата",
      "status-changed": "смена статуса",
      submitted: "отправка",
      registered: "регистрация",
    },
  },
};

const hooks = chunkCatalogue("hooks", hooksEn, hooksRu);

/** `t` in `lang` for the panels' words. */
export const hooksT: (lang: string) => TFunction = hooks.at;
/** `t` in the app's current language. */
export const useHooksT: () => TFunction = hooks.useT;
