// The words of the API key panel in en and ru. They load with the admin's lazy chunk; keys under
// `keys.` come from here.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const keysEn: Catalogue = {
  keys: {
    title: "The key",
    none: "This key has no token yet. Make one, then give it to the agent or script.",
    has: "The key in use begins with {{prefix}} — it cannot be shown again; make a new one if it was lost.",
    make: "Make the key",
    remake: "Make a new key",
    remakeConfirm: "The key in use stops working at once: the agent must get the new one. Make a new key?",
    remakeYes: "Yes, make a new one",
    cancel: "Cancel",
    made: "A new key was made",
    once: "Copy the key now: it is shown only this once.",
    value: "API key",
    copy: "Copy",
    copied: "Key copied",
    connect: "Connecting an AI agent",
    connectHelp: "Add an MCP server (streamable HTTP) at the address below and send the key as the header Authorization: Bearer <key>. Scripts send the same header to the API.",
    address: "MCP address",
    failed: "That did not work; try again.",
  },
};

export const keysRu: Catalogue = {
  keys: {
    title: "Ключ",
    none: "У этого ключа ещё нет значения. Создайте его и передайте агенту или скрипту.",
    has: "Используется ключ, начинающийся с {{prefix}} — показать его снова нельзя; если он потерян, создайте новый.",
    make: "Создать ключ",
    remake: "Создать новый ключ",
    remakeConfirm: "Текущий ключ сразу перестанет работать: агенту понадобится новый. Создать новый ключ?",
    remakeYes: "Да, создать новый",
    cancel: "Отмена",
    made: "Новый ключ создан",
    once: "Скопируйте ключ сейчас: он показывается только один раз.",
    value: "API-ключ",
    copy: "Копировать",
    copied: "Ключ скопирован",
    connect: "Подключение ИИ-агента",
    connectHelp: "Добавьте MCP-сервер с транспортом «потоковый HTTP» по адресу ниже и передавайте ключ в заголовке Authorization: Bearer <ключ>. Скрипты передают тот же заголовок в API.",
    address: "Адрес MCP",
    failed: "Не получилось; попробуйте ещё раз.",
  },
};

const keys = chunkCatalogue("keys", keysEn, keysRu);

/** `t` in `lang` for the panel's words. */
export const keysT: (lang: string) => TFunction = keys.at;
/** `t` in the app's current language. */
export const useKeysT: () => TFunction = keys.useT;
