// The words of the AI assistant panel in en and ru. They load with the admin's lazy chunk; keys
// under `ai.` come from here.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const aiEn: Catalogue = {
  ai: {
    title: "AI answers",
    off: "This assistant stays silent: the server has no AI service set up. An administrator of the server sets STOA_AI_BASE_URL, STOA_AI_API_KEY and STOA_AI_MODEL (an OpenAI-compatible service) and restarts it.",
    on: "Answers in its chats with the model {{model}}, streaming as it writes.",
    usage: "This month: {{used}} of {{budget}} tokens used.",
    spent: "This month's budget is spent: it tells the chat so until next month, or until you raise the monthly budget above.",
    how: "Add it to a chat as a member: it answers every message of the other members, in the language each writes in, with the instructions above.",
  },
};

export const aiRu: Catalogue = {
  ai: {
    title: "Ответы ИИ",
    off: "Этот ассистент молчит: на сервере не настроен ИИ-сервис. Администратор сервера задаёт STOA_AI_BASE_URL, STOA_AI_API_KEY и STOA_AI_MODEL (сервис, совместимый с OpenAI) и перезапускает его.",
    on: "Отвечает в своих чатах моделью {{model}}, показывая ответ по мере написания.",
    usage: "В этом месяце израсходовано {{used}} из {{budget}} токенов.",
    spent: "Бюджет этого месяца израсходован: до следующего месяца ассистент сообщает об этом в чате — или увеличьте месячный бюджет выше.",
    how: "Добавьте его в чат участником: он отвечает на каждое сообщение других участников на языке, на котором они пишут, следуя инструкциям выше.",
  },
};

const ai = chunkCatalogue("ai", aiEn, aiRu);

/** `t` in the app's current language. */
export const useAiT: () => TFunction = ai.useT;
/** `t` in `lang`. */
export const aiT: (lang: string) => TFunction = ai.at;
