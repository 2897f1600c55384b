import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { type TFunction, useTranslation } from "@/i18n";
import { toast } from "sonner";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { meKey, type Subject } from "@/lib/session";

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

const OPTIONAL_FIELDS = ["first_name", "last_name", "username", "photo_url"] as const;
/** Every query parameter Telegram's redirect adds (and ours, [`TELEGRAM_STATE`]). */
const REDIRECT_FIELDS = ["id", "auth_date", "hash", ...OPTIONAL_FIELDS];

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
  for (const k of OPTIONAL_FIELDS) {
    const v = q.get(k);
    if (v !== null) user[k] = v;
  }
  return user as unknown as TelegramUser;
}

/**
 * The query parameter that carries a nonce through Telegram's redirect. Signed fields alone prove
 * only that someone logged in to Telegram in the last day, not that this browser asked for it: an
 * attacker could put their own fields in a link to a victim's settings page. So the widget's
 * `data-auth-url` carries a random state kept in this tab's sessionStorage, and fields that come
 * back without that state link nothing.
 */
export const TELEGRAM_STATE = "tg_state";
const STATE_KEY = "stoa.telegram.state";

/** A new random state (128 bits, hex) for the widget about to be shown, kept in this tab: it
 * replaces any earlier one, so only the latest widget's redirect is accepted. */
export function issueTelegramState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const state = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  try {
    sessionStorage.setItem(STATE_KEY, state);
  } catch {
    // No storage (blocked): the state cannot be checked on return, so nothing will be linked.
  }
  return state;
}

function storedTelegramState(): string | null {
  try {
    return sessionStorage.getItem(STATE_KEY);
  } catch {
    return null;
  }
}

/** Forgets the tab's state if it is `state`: a state is good for one return only. (A newer one,
 * issued by a widget shown since, stays.) */
export function consumeTelegramState(state: string): void {
  try {
    if (sessionStorage.getItem(STATE_KEY) === state) sessionStorage.removeItem(STATE_KEY);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

/** What the settings page finds in its address: nothing of Telegram's (null), fields this tab
 * asked for (`ours`: the state matches the stored one) or fields it did not ask for (a crafted
 * link, an old or reused one: no state, another state, or none stored). */
export type TelegramReturn = { user: TelegramUser; ours: boolean } | null;

export function telegramReturn(search: string, stored: string | null): TelegramReturn {
  const user = fromRedirect(search);
  if (!user) return null;
  const state = new URLSearchParams(search).get(TELEGRAM_STATE);
  return { user, ours: !!state && !!stored && state === stored };
}

/** `search` without Telegram's fields and the state (other parameters stay). */
export function withoutTelegramFields(search: string): string {
  const q = new URLSearchParams(search);
  for (const k of [...REDIRECT_FIELDS, TELEGRAM_STATE]) q.delete(k);
  const rest = q.toString();
  return rest ? `?${rest}` : "";
}

/** Whom the confirmation names: '@username (First Last)', or the name and the numeric id. */
function telegramQuestion(user: TelegramUser, t: TFunction): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(" ");
  return user.username ? t("telegram.confirm", { username: user.username, name }) : t("telegram.confirmNoUsername", { name, id: user.id });
}

/** Renders the widget's button for `bot`; Telegram sends the browser back to this page with the
 * signed fields in the query (see [`fromRedirect`]), next to a fresh state (see
 * [`TELEGRAM_STATE`]). */
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
    // Telegram adds its fields to this address's query, keeping the state.
    const back = new URLSearchParams({ [TELEGRAM_STATE]: issueTelegramState() });
    script.setAttribute("data-auth-url", `${window.location.origin}${window.location.pathname}?${back}`);
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
  // Back from Telegram: what the address carries, judged against this tab's state before anything
  // else runs (the widget, once shown, issues a new state).
  const [back] = useState<TelegramReturn>(() => (typeof window === "undefined" ? null : telegramReturn(window.location.search, storedTelegramState())));
  // Fields this tab asked for wait for the user's 'Link' (an address can be opened by mistake);
  // while the email waits for its code the server would refuse, so nothing is asked.
  const [pending, setPending] = useState<TelegramUser | null>(back?.ours && !blockedHint ? back.user : null);
  const link = useMutation({
    mutationFn: (user: TelegramUser) => linkTelegram(subject.id, user),
    onSuccess: () => {
      toast.success(t("telegram.linked"));
      void qc.invalidateQueries({ queryKey: meKey });
    },
    onError: (e) => toast.error(t("telegram.failed"), { description: e instanceof ApiError ? errorMessage(e, t) : undefined }),
  });
  // The fields and the state leave the address bar, whatever they were (a reload or a shared
  // address repeats nothing), and a state that matched is spent.
  useEffect(() => {
    const search = window.location.search;
    const state = new URLSearchParams(search).get(TELEGRAM_STATE);
    if (!back && state === null) return;
    if (state !== null) consumeTelegramState(state);
    window.history.replaceState(window.history.state, "", window.location.pathname + withoutTelegramFields(search) + window.location.hash);
  }, [back]);
  function decide(confirmed: boolean) {
    if (confirmed && pending) link.mutate(pending);
    setPending(null);
  }
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
      {back && !back.ours ? (
        <p role="alert" className="mt-3 text-sm text-destructive" data-testid="telegram-not-ours">
          {t("telegram.notStarted")}
        </p>
      ) : null}
      {blockedHint ? (
        <p className="mt-3 rounded-md border border-amber-700 bg-amber-50 p-3 text-sm text-amber-950" data-testid="telegram-blocked">
          {blockedHint}
        </p>
      ) : pending ? null : (
        <div className="mt-3" aria-busy={link.isPending}>
          <TelegramLoginButton bot={bot} lang={lang} />
        </div>
      )}
      <Dialog
        open={!!pending}
        onOpenChange={(open) => {
          if (!open) decide(false);
        }}
      >
        {pending ? (
          <DialogContent title={telegramQuestion(pending, t)} description={t("telegram.confirmHelp")} className="max-w-md" data-testid="telegram-confirm">
            <div className="flex justify-end gap-2">
              <Button variant="outline" onClick={() => decide(false)}>
                {t("telegram.cancel")}
              </Button>
              <Button onClick={() => decide(true)}>{t("telegram.link")}</Button>
            </div>
          </DialogContent>
        ) : null}
      </Dialog>
    </section>
  );
}
