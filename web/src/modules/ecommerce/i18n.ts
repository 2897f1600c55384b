// The shop's words (orders and their pages, the payment's progress, the donation and product
// buy boxes) in en and ru. They load with the shop's chunks (the cart, the order screens, the
// ecommerce widgets), not with the public site's first-load JavaScript; keys under `shop.` come
// from here, every other key (`commerce.status.*`, `site.*`) from the app's catalogues.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const shopEn: Catalogue = {
  shop: {
    orderNumber: "Order № {{number}}",
    yourOrder: "Your order",
    order: "Order",
    closeCart: "Close the cart",
    itemsInCart: "Items in the cart:",
    signIn: "Sign in",
    signInForOrders: "Sign in to see your orders.",
    signInToFollow: "Sign in with the account you paid from to see how the payment stands.",
    failedTitle: "The payment did not go through",
    notStartedTitle: "The payment was not completed",
    follow: {
      pending: "We are confirming the payment with the bank; this page updates by itself.",
      slow: "The bank is taking longer than usual. You can close this page: the status will be in My orders and in an email.",
      paid: "The payment went through: the order is paid.",
      failed: "The payment did not go through and nothing was charged. You can try again.",
      open: "The payment was not started; the order is back in the cart.",
    },
    page: {
      lines: "What is in the order",
      product: "Product",
      sum: "Sum",
      history: "Status history",
      created: "Order placed",
      placed: "Placed",
      state: {
        pending: "The payment is being confirmed; this page updates by itself.",
        paid: "Paid. Thank you!",
        failed: "The payment did not go through; nothing was charged.",
        open: "Not paid yet: the order is in the cart.",
      },
      mailedTo: "Updates go to {{email}}.",
      notYours: "This order is not in your account. If you placed it from another account, sign in to it.",
      signIn: "Sign in to see this order.",
      notFound: "There is no such order.",
      breadcrumbs: "Breadcrumbs",
      payments: "Payment",
      payment: {
        draft: "Being prepared",
        open: "Waiting for payment",
        paid: "Paid",
        uncollectible: "Not collected",
        void: "Cancelled",
        failed: "Did not go through",
      },
      pay: "Go to payment",
      payNote: "opens {{provider}}",
      receipt: "Receipt",
      receiptLink: "Open the receipt",
    },
    currency: {
      legend: "Currency and payment",
      rub: "Russian cards",
      kzt: "Kazakh cards (TipTopPay)",
      other: "foreign cards ({{provider}})",
      none: "Payment is not available right now.",
    },
    buyNow: "Buy now",
    receiptHelp: "The receipt is sent here.",
    receiptHelpOptional: "Optional: the receipt is sent here.",
    invoiceHelp: "The invoice and the receipt are sent here.",
    invoiceHelpOptional: "Optional: the invoice and the receipt are sent here.",
    inCurrency: "Paid in {{currency}}",
    donation: {
      bank: "Your card's bank",
      banks: { ru: "Russian bank", kz: "Kazakh bank", foreign: "Foreign bank" },
      hint: {
        ru: "In roubles (₽) · {{provider}}",
        kz: "In tenge (₸) · {{provider}}",
        foreign: "By card · {{provider}}",
        foreignDetails: "PayPal or Telegram",
      },
      payWith: "{{price}} per tree, paid through {{provider}}",
      perTree: "{{price}} per tree",
    },
    card: {
      pay: "Pay by card",
      opening: "Opening the card form…",
      note: "The card form of {{provider}} opens over this page; your card details go to the bank only.",
      description: "{{title}} × {{count}}",
      notPaid: "The payment was not completed",
      noCharge: "Nothing was charged; you can try again.",
      unavailable: "Card payment is not available right now.",
    },
  },
};

export const shopRu: Catalogue = {
  shop: {
    orderNumber: "Заказ № {{number}}",
    yourOrder: "Ваш заказ",
    order: "Заказ",
    closeCart: "Закрыть корзину",
    itemsInCart: "Товаров в корзине:",
    signIn: "Войти",
    signInForOrders: "Войдите, чтобы увидеть свои заказы.",
    signInToFollow: "Войдите в аккаунт, из которого оплачивали, чтобы увидеть, как идёт оплата.",
    failedTitle: "Оплата не прошла",
    notStartedTitle: "Оплата не завершена",
    follow: {
      pending: "Подтверждаем оплату в банке; страница обновится сама.",
      slow: "Банк подтверждает оплату дольше обычного. Страницу можно закрыть: статус появится в «Моих заказах» и придёт письмом.",
      paid: "Оплата прошла: заказ оплачен.",
      failed: "Оплата не прошла, деньги не списаны. Можно попробовать ещё раз.",
      open: "Оплата не началась; заказ снова в корзине.",
    },
    page: {
      lines: "Состав заказа",
      product: "Товар",
      sum: "Сумма",
      history: "История статусов",
      created: "Заказ оформлен",
      placed: "Оформлен",
      state: {
        pending: "Оплата подтверждается; страница обновится сама.",
        paid: "Оплачен. Спасибо!",
        failed: "Оплата не прошла; деньги не списаны.",
        open: "Ещё не оплачен: заказ в корзине.",
      },
      mailedTo: "Уведомления приходят на {{email}}.",
      notYours: "Этого заказа нет в вашем аккаунте. Если вы оформляли его из другого аккаунта, войдите в него.",
      signIn: "Войдите, чтобы увидеть этот заказ.",
      notFound: "Такого заказа нет.",
      breadcrumbs: "Навигация",
      payments: "Оплата",
      payment: {
        draft: "Готовится",
        open: "Ожидает оплаты",
        paid: "Оплачен",
        uncollectible: "Не взыскан",
        void: "Отменён",
        failed: "Не прошёл",
      },
      pay: "Перейти к оплате",
      payNote: "откроется {{provider}}",
      receipt: "Квитанция",
      receiptLink: "Открыть квитанцию",
    },
    currency: {
      legend: "Валюта и способ оплаты",
      rub: "российские карты",
      kzt: "казахстанские карты (TipTopPay)",
      other: "карты иностранных банков ({{provider}})",
      none: "Оплата сейчас недоступна.",
    },
    buyNow: "Купить",
    receiptHelp: "Сюда придёт чек.",
    receiptHelpOptional: "Необязательно: сюда придёт чек.",
    invoiceHelp: "Сюда придут счёт и чек.",
    invoiceHelpOptional: "Необязательно: сюда придут счёт и чек.",
    inCurrency: "Оплата в {{currency}}",
    donation: {
      bank: "Банк вашей карты",
      banks: { ru: "Российский банк", kz: "Казахстанский банк", foreign: "Иностранный банк" },
      hint: {
        ru: "В рублях (₽) · {{provider}}",
        kz: "В тенге (₸) · {{provider}}",
        foreign: "Картой · {{provider}}",
        foreignDetails: "PayPal или Telegram",
      },
      payWith: "{{price}} за дерево, оплата через {{provider}}",
      perTree: "{{price}} за дерево",
    },
    card: {
      pay: "Оплатить картой",
      opening: "Открываем форму оплаты…",
      note: "Форма оплаты {{provider}} откроется поверх страницы; данные карты получит только банк.",
      description: "{{title}} — {{count}} шт.",
      notPaid: "Оплата не завершена",
      noCharge: "Деньги не списаны; можно попробовать ещё раз.",
      unavailable: "Оплата картой сейчас недоступна.",
    },
  },
};

const shop = chunkCatalogue("shop", shopEn, shopRu);

/** `t` in `lang`: `shop.*` from this catalogue, the rest from the app's. */
export const shopT: (lang: string) => TFunction = shop.at;

/** `shopT` in the app's current language (re-renders when it changes). */
export const useShopT: () => TFunction = shop.useT;
