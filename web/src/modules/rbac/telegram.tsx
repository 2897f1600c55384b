import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef } from "react";
import { useTranslation } from "@/i18n";
import { toast } from "sonner";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { meKey, type Subject } from "./session";

/** The official Telegram Login Widget (https://core.telegram.org/widgets/login). */
export const TELEGRAM_WIDGET = "https://telegram.org/js/telegram-widget.js?22";
export const TELEGRAM = "telegram";

/** What the widget hands its `data-onauth` callback, signed by Telegram with the bot's token. */
export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

/** The body that links a Telegram account: the widget's fields exactly as received (the server
 * checks their hash over them), and the provider. */
export function telegramBody(user: TelegramUser): TelegramUser & { provider: typeof TELEGRAM } {
  return { ...user, provider: TELEGRAM };
}

export function linkTelegram(subject: string, user: TelegramUser) {
  return api.post("/api/rbac/subjects/{id}/identities", { params: { path: { id: subject } }, body: telegramBody(user) });
}

/** The widget's fields when Telegram sends the browser back to the settings page (the widget's
 * redirect mode, `data-auth-url`: no script of ours runs inside the widget), or null. Only the
 * fields present are kept: the hash covers exactly those. */
export function fromRedirect(search: string): TelegramUser | null {
  const q = new URLSearchParams(search);
  const id = q.get("id");
  const hash = q.get("hash");
  const auth = q.get("auth_date");
  if (!id || !hash || !auth) return null;
  const user: Record<string, string | number> = { id: Number(id), auth_date: Number(auth), hash };
  for (const k of ["first_name", "last_name", "username", "photo_url"]) {
    const v = q.get(k);
    if (v !== null) user[k] = v;
  }
  return user as unknown as TelegramUser;
}

/** Renders the widget's button for `bot`; Telegram sends the browser back to this page with the
 * signed fields in the query (see [`fromRedirect`]). */
export function TelegramLoginButton({ bot, lang }: { bot: string; lang: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const script = document.createElement("script");
    script.async = true;
    script.src = TELEGRAM_WIDGET;
    script.setAttribute("data-telegram-login", bot);
    script.setAttribute("data-size", "large");
    // Lets the bot write to the user: notifications go through it.
    script.setAttribute("data-request-access", "write");
    script.setAttribute("data-lang", lang);
    script.setAttribute("data-auth-url", window.location.origin + window.location.pathname);
    el.replaceChildren(script);
    return () => {
      el.replaceChildren();
    };
  }, [bot, lang]);
  return <div ref={box} data-testid="telegram-widget" className="min-h-10" />;
}

interface TelegramLinkProps {
  bot: string | null | undefined;
  subject: Subject;
  lang: string;
  /** Why linking is not possible now (an email address waits for its code): said in place of the widget. */
  blockedHint?: string;
}

/** 'Link Telegram' in the account settings: the linked Telegram accounts and the widget that links
 * another. Renders nothing when the site has no Telegram bot. */
export function TelegramLink({ bot, ...props }: TelegramLinkProps) {
  if (!bot) return null;
  return <TelegramSection bot={bot} {...props} />;
}

function TelegramSection({ bot, subject, lang, blockedHint }: TelegramLinkProps & { bot: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const headingId = useId();
  const linked = subject.identities.filter((i) => i.provider === TELEGRAM);
  const link = useMutation({
    mutationFn: (user: TelegramUser) => linkTelegram(subject.id, user),
    onSuccess: () => {
      toast.success(t("telegram.linked"));
      void qc.invalidateQueries({ queryKey: meKey });
    },
    onError: (e) => toast.error(t("telegram.failed"), { description: e instanceof ApiError ? errorMessage(e, t) : undefined }),
  });
  const { mutate } = link;
  // Back from Telegram: link what it signed, then drop the fields from the address bar (so this
  // runs once, however often `mutate` changes).
  useEffect(() => {
    const user = fromRedirect(window.location.search);
    if (!user) return;
    window.history.replaceState(window.history.state, "", window.location.pathname);
    mutate(user);
  }, [mutate]);
  return (
    <section aria-labelledby={headingId} className="mt-8 rounded-lg border border-border p-4" data-testid="telegram-link">
      <h2 id={headingId} className="text-lg font-medium">
        {t("telegram.title")}
      </h2>
      <p className="mt-1 text-sm text-neutral-700">{t("telegram.help")}</p>
      {linked.length ? (
        <ul className="mt-3 grid gap-1 text-sm" data-testid="telegram-linked">
          {linked.map((i) => (
            <li key={i.id}>{t("telegram.linkedAs", { id: i.account ?? "" })}</li>
          ))}
        </ul>
      ) : null}
      {blockedHint ? (
        <p className="mt-3 rounded-md border border-amber-700 bg-amber-50 p-3 text-sm text-amber-950" data-testid="telegram-blocked">
          {blockedHint}
        </p>
      ) : (
        <div className="mt-3" aria-busy={link.isPending}>
          <TelegramLoginButton bot={bot} lang={lang} />
        </div>
      )}
    </section>
  );
}
