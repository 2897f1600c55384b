// The words of the public widgets of blog, billing, notification, analytic, startup and rbac's
// members, in en and ru. They load with those widgets' chunks (and rich text's), not with the
// public site's first-load JavaScript; keys under `widgets.` come from here, every other key from
// the app's catalogues, in the app's current language.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const widgetsEn: Catalogue = {
  widgets: {
    blog: {
      readingTime: "{{minutes}} min read",
      related: "Read next",
    },
    richText: { video: "Watch the video" },
    billing: {
      title: "Ways to pay",
      intro: "You can pay in any of these ways.",
      anyCurrency: "Any currency",
      currencies: "Currencies",
      loading: "Loading the ways to pay…",
      none: "Online payment is not available right now.",
    },
    notification: {
      title: "Project news by email",
      soon: "Email updates are coming soon. Until then, follow the news in the blog.",
      email: "Email",
      placeholder: "Type your email",
      subscribe: "Subscribe",
      blog: "Read the blog",
    },
    analytic: {
      title: "The project in numbers",
      trees_one: "tree paid for on this site",
      trees_few: "trees paid for on this site",
      trees_many: "trees paid for on this site",
      trees_other: "trees paid for on this site",
      articles_one: "article in the blog",
      articles_few: "articles in the blog",
      articles_many: "articles in the blog",
      articles_other: "articles in the blog",
      loading: "Counting…",
    },
    members: {
      intro: "Members who have a public profile.",
      empty: "No member has a public profile yet.",
      view: "View profile",
      private: "Member accounts are private",
      privateText: "Only administrators see accounts. Members' public profiles are on the members page.",
      all: "All members",
      loading: "Loading…",
    },
  },
};

export const widgetsRu: Catalogue = {
  widgets: {
    blog: {
      readingTime: "{{minutes}} мин чтения",
      related: "Читайте также",
    },
    richText: { video: "Смотреть видео" },
    billing: {
      title: "Способы оплаты",
      intro: "Оплатить можно любым из этих способов.",
      anyCurrency: "Любая валюта",
      currencies: "Валюты",
      loading: "Загружаем способы оплаты…",
      none: "Сейчас оплата на сайте недоступна.",
    },
    notification: {
      title: "Новости проекта на почту",
      soon: "Подписка по почте скоро откроется. А пока следите за новостями в блоге.",
      email: "Электронная почта",
      placeholder: "Введите email",
      subscribe: "Подписаться",
      blog: "Читать блог",
    },
    analytic: {
      title: "Проект в цифрах",
      trees_one: "дерево оплачено на сайте",
      trees_few: "дерева оплачено на сайте",
      trees_many: "деревьев оплачено на сайте",
      trees_other: "дерева оплачено на сайте",
      articles_one: "статья в блоге",
      articles_few: "статьи в блоге",
      articles_many: "статей в блоге",
      articles_other: "статьи в блоге",
      loading: "Считаем…",
    },
    members: {
      intro: "Участники, у которых есть публичный профиль.",
      empty: "Пока ни у кого из участников нет публичного профиля.",
      view: "Открыть профиль",
      private: "Учётные записи участников закрыты",
      privateText: "Учётные записи видят только администраторы. Публичные профили участников — на странице участников.",
      all: "Все участники",
      loading: "Загружаем…",
    },
  },
};

const widgets = chunkCatalogue("widgets", widgetsEn, widgetsRu);

/** `widgets.*` from this catalogue, the rest from the app's, in the app's current language. */
export const useWidgetsT: () => TFunction = widgets.useT;
