// The words of two-factor sign-in (the code step, enrolment, recovery codes) and the sessions
// list in en and ru. They live beside the account screens, which are a chunk of their own, so
// they stay out of the public site's first-load JavaScript; keys under `security.` come from
// here, every other key from the app's catalogues, in the app's current language.
import i18n, { useTranslation } from "@/i18n";
import { type Catalogue, type TFunction, Translator } from "@/lib/translate";

export const securityEn: Catalogue = {
  security: {
    password: { label: "Current password", required: "Enter your password to confirm it is you", wrong: "This is not your current password" },
    code: {
      title: "Two-step verification",
      subtitle: "Enter the 6-digit code from your authenticator app.",
      recoverySubtitle: "Enter one of the recovery codes you saved. Each works once.",
      label: "Code",
      recoveryLabel: "Recovery code",
      useRecovery: "Use a recovery code",
      useApp: "Use the authenticator app",
      submit: "Verify",
      format: "Enter the 6 digits from the app",
      empty: "Enter a recovery code",
      wrong: "This code is not right; try again.",
      expired: "The sign-in took too long; enter your password again.",
      back: "Back to the password",
    },
    title: "Security",
    twoFactor: "Two-factor sign-in",
    on: "On",
    off: "Off",
    onHelp: "Signing in asks for a code from your authenticator app after the password.",
    offHelp: "Add a code from an authenticator app to your password, so a stolen password alone cannot open your account.",
    required: "This site requires administrators to use two-factor sign-in: turn it on to open the admin.",
    enable: "Turn on",
    disable: "Turn off",
    scan: "Scan the QR code with an authenticator app (Google Authenticator, Aegis, 1Password…), or type in the key. Then enter the code the app shows.",
    qr: "QR code for the authenticator app",
    secret: "Key",
    confirm: "Confirm",
    cancel: "Cancel",
    codesTitle: "Recovery codes",
    codesHelp: "If you lose your phone, each code signs you in once. They are shown only now: copy or download them and keep them somewhere safe.",
    copy: "Copy",
    copied: "Recovery codes copied",
    copyFailed: "The codes could not be copied; select them and copy by hand",
    download: "Download",
    saved: "I saved them",
    enabled: "Two-factor sign-in is on",
    disableTitle: "Turn off two-factor sign-in",
    disableHelp: "Enter a code from your authenticator app or one of your recovery codes.",
    disabled: "Two-factor sign-in is off",
    sessions: "Sessions",
    sessionsHelp: "Where your account is signed in, most recently used first. Sign out any session you do not recognise: it ends at once.",
    thisDevice: "This device",
    unknownDevice: "Unknown device",
    lastUsed: "Last used {{when}}",
    since: "signed in {{when}}",
    withCode: "with a code",
    ip: "IP address",
    signOut: "Sign out",
    signOutNamed: "Sign out {{device}}",
    signedOut: "The session is ended",
    currentHint: "To end this one, use Logout.",
  },
};

export const securityRu: Catalogue = {
  security: {
    password: { label: "Текущий пароль", required: "Введите пароль, чтобы подтвердить, что это вы", wrong: "Это не ваш текущий пароль" },
    code: {
      title: "Двухэтапная проверка",
      subtitle: "Введите 6-значный код из приложения-аутентификатора.",
      recoverySubtitle: "Введите один из сохранённых резервных кодов. Каждый действует один раз.",
      label: "Код",
      recoveryLabel: "Резервный код",
      useRecovery: "Войти с резервным кодом",
      useApp: "Войти с кодом из приложения",
      submit: "Подтвердить",
      format: "Введите 6 цифр из приложения",
      empty: "Введите резервный код",
      wrong: "Код не подошёл; попробуйте ещё раз.",
      expired: "Вход занял слишком много времени; введите пароль снова.",
      back: "Вернуться к паролю",
    },
    title: "Безопасность",
    twoFactor: "Двухфакторный вход",
    on: "Включён",
    off: "Выключен",
    onHelp: "После пароля вход запрашивает код из приложения-аутентификатора.",
    offHelp: "Добавьте к паролю код из приложения-аутентификатора, чтобы один украденный пароль не открывал ваш аккаунт.",
    required: "На этом сайте администраторы обязаны входить с двухфакторной проверкой: включите её, чтобы открыть админку.",
    enable: "Включить",
    disable: "Выключить",
    scan: "Отсканируйте QR-код приложением-аутентификатором (Google Authenticator, Aegis, 1Password…) или введите ключ вручную. Затем введите код, который покажет приложение.",
    qr: "QR-код для приложения-аутентификатора",
    secret: "Ключ",
    confirm: "Подтвердить",
    cancel: "Отмена",
    codesTitle: "Резервные коды",
    codesHelp: "Если вы потеряете телефон, каждый код позволит войти один раз. Они показываются только сейчас: скопируйте или скачайте их и храните в надёжном месте.",
    copy: "Скопировать",
    copied: "Резервные коды скопированы",
    copyFailed: "Не удалось скопировать коды; выделите и скопируйте их вручную",
    download: "Скачать",
    saved: "Я их сохранил(а)",
    enabled: "Двухфакторный вход включён",
    disableTitle: "Выключить двухфакторный вход",
    disableHelp: "Введите код из приложения-аутентификатора или один из резервных кодов.",
    disabled: "Двухфакторный вход выключен",
    sessions: "Сеансы",
    sessionsHelp: "Где выполнен вход в ваш аккаунт, сначала недавние. Завершите сеанс, который вы не узнаёте: он закончится сразу.",
    thisDevice: "Это устройство",
    unknownDevice: "Неизвестное устройство",
    lastUsed: "Последняя активность {{when}}",
    since: "вход {{when}}",
    withCode: "с кодом",
    ip: "IP-адрес",
    signOut: "Завершить",
    signOutNamed: "Завершить сеанс {{device}}",
    signedOut: "Сеанс завершён",
    currentHint: "Чтобы завершить этот сеанс, нажмите «Выйти».",
  },
};

const security = new Translator({ en: securityEn, ru: securityRu }, "en", "en");
const bound = new Map<string, TFunction>();

/** `t` in `lang`: `security.*` from this catalogue, the rest from the app's. */
export function securityT(lang: string): TFunction {
  let t = bound.get(lang);
  if (!t) {
    const own = security.getFixedT(lang);
    const app = i18n.getFixedT(lang);
    t = (key, options) => (key.startsWith("security.") ? own(key, options) : app(key, options));
    bound.set(lang, t);
  }
  return t;
}

/** `securityT` in the app's current language (re-renders when it changes). */
export function useSecurityT(): TFunction {
  const { i18n: app } = useTranslation();
  return securityT(app.language);
}
