// The words of email confirmation (the code step, the verify-email page, changing and adding an
// address) and of the password reset's outcome, in en and ru. Like `security-i18n.ts` they load
// with the account screens' chunk, out of the public site's first-load JavaScript: keys under
// `email.` come from here, every other key from the app's catalogues.
import { chunkCatalogue } from "@/i18n/chunk";
import type { Catalogue, TFunction } from "@/lib/translate";

export const emailEn: Catalogue = {
  email: {
    verify: {
      title: "Confirm your email",
      sentTo: "We sent a 6-digit code to {{email}}",
      code: "Confirmation code",
      format: "Enter the 6 digits from the mail",
      submit: "Confirm",
      pending: "Confirming…",
      resend: "Send a new code",
      resent: "A new code is on its way to {{email}}",
      done: "Email address confirmed",
      later: "Later",
    },
    badge: { unconfirmed: "Not confirmed" },
    confirm: "Confirm",
    enterCode: "Enter the code",
    pending: "Changing to {{email}} — enter the code sent there",
    linkBlocked: "Confirm your email to link a wallet or Telegram",
    change: {
      open: "Change email",
      title: "Change email",
      description: "We send a code to the new address; your email changes once you enter it.",
      email: "New email",
      password: "Current password",
      submit: "Send the code",
      pending: "Sending…",
    },
    add: {
      title: "Add an email",
      help: "Sign in with an email and a password too, and get the account's mail. We send a code to confirm the address.",
      placeholder: "Type your email",
      password: "Password",
      submit: "Add",
      pending: "Adding…",
    },
    page: {
      title: "Confirm email",
      submit: "Confirm email",
      signIn: "Sign in to the account you are confirming",
      login: "Sign in",
      noCode: "This link has no confirmation code. Ask for a new one in your settings.",
      otherAccount: "This link confirms an address of another account. Sign out, then sign in to the account you are confirming.",
      done: "Your email address is confirmed.",
      settings: "Go to the settings",
    },
    forgot: { sent: "Reset link sent" },
    reset: {
      done: "Password reset successfully",
      removed: "For your safety these sign-in methods, added before your address was confirmed, were removed:",
      secondFactorRemoved: "Two-factor sign-in was turned off",
      provider: { email: "Email", evm: "Wallet", telegram: "Telegram", oidc: "{{name}}" },
    },
    oidc: {
      signIn: "Sign in with {{name}}",
      add: "Add sign-in with {{name}}",
      addHelp: "Sign in to this account with your {{name}} account too.",
      error: {
        state: "That sign-in link was already used or has expired. Start again.",
        token: "{{name}} sent an answer that could not be trusted, so you were not signed in. Try again.",
        provider: "{{name}} cannot be reached right now. Try again, or sign in another way.",
        cancelled: "Sign-in with {{name}} was cancelled.",
        unconfirmed: "An account with this address exists, but the address was never confirmed. Sign in with its password, confirm the address, then add {{name}} from your account page.",
        elsewhere: "This {{name}} account is already linked to another account here.",
        busy: "Too many sign-in attempts. Wait a minute and try again.",
      },
    },
  },
};

export const emailRu: Catalogue = {
  email: {
    verify: {
      title: "Подтвердите email",
      sentTo: "Мы отправили 6-значный код на {{email}}",
      code: "Код подтверждения",
      format: "Введите 6 цифр из письма",
      submit: "Подтвердить",
      pending: "Подтверждаем…",
      resend: "Отправить новый код",
      resent: "Новый код отправлен на {{email}}",
      done: "Адрес почты подтверждён",
      later: "Позже",
    },
    badge: { unconfirmed: "Не подтверждён" },
    confirm: "Подтвердить",
    enterCode: "Ввести код",
    pending: "Смена на {{email}} — введите код, отправленный туда",
    linkBlocked: "Подтвердите email, чтобы привязать кошелёк или Telegram",
    change: {
      open: "Сменить email",
      title: "Смена email",
      description: "Мы отправим код на новый адрес; email сменится, когда вы его введёте.",
      email: "Новый email",
      password: "Текущий пароль",
      submit: "Отправить код",
      pending: "Отправляем…",
    },
    add: {
      title: "Добавить email",
      help: "Входите также по email и паролю и получайте письма аккаунта. Мы отправим код, чтобы подтвердить адрес.",
      placeholder: "Введите ваш email",
      password: "Пароль",
      submit: "Добавить",
      pending: "Добавляем…",
    },
    page: {
      title: "Подтверждение email",
      submit: "Подтвердить email",
      signIn: "Войдите в аккаунт, адрес которого подтверждаете",
      login: "Войти",
      noCode: "В ссылке нет кода подтверждения. Запросите новый в настройках.",
      otherAccount: "Эта ссылка подтверждает адрес другого аккаунта. Выйдите и войдите в аккаунт, адрес которого подтверждаете.",
      done: "Ваш адрес почты подтверждён.",
      settings: "Перейти в настройки",
    },
    forgot: { sent: "Ссылка для сброса отправлена" },
    reset: {
      done: "Пароль успешно сброшен",
      removed: "Ради безопасности удалены способы входа, добавленные до подтверждения адреса:",
      secondFactorRemoved: "Двухфакторный вход выключен",
      provider: { email: "Почта", evm: "Кошелёк", telegram: "Telegram", oidc: "{{name}}" },
    },
    oidc: {
      signIn: "Войти через {{name}}",
      add: "Добавить вход через {{name}}",
      addHelp: "Входите в эту учётную запись и через свой аккаунт {{name}}.",
      error: {
        state: "Эта ссылка для входа уже использована или устарела. Начните заново.",
        token: "{{name}} прислал ответ, которому нельзя доверять, поэтому вход не выполнен. Попробуйте ещё раз.",
        provider: "{{name}} сейчас недоступен. Попробуйте ещё раз или войдите другим способом.",
        cancelled: "Вход через {{name}} отменён.",
        unconfirmed: "Учётная запись с этим адресом уже есть, но адрес не подтверждён. Войдите с её паролем, подтвердите адрес, затем добавьте {{name}} на странице учётной записи.",
        elsewhere: "Этот аккаунт {{name}} уже привязан к другой учётной записи здесь.",
        busy: "Слишком много попыток входа. Подождите минуту и попробуйте снова.",
      },
    },
  },
};

const email = chunkCatalogue("email", emailEn, emailRu);

/** `t` in `lang`: `email.*` from this catalogue, the rest from the app's. */
export const emailT: (lang: string) => TFunction = email.at;

/** `emailT` in the app's current language (re-renders when it changes). */
export const useEmailT: () => TFunction = email.useT;
