import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { isLanguage, type Language, LANGUAGES, useTranslation } from "@/i18n";
import { toast } from "sonner";
import type { Row } from "@/api/entities";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { type Column, FilteredList, when } from "@/admin/list";
import { Button } from "@/ui/button";
import { Badge } from "@/ui/card";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Label, Select, Textarea } from "@/ui/input";

export const NOTIFICATIONS = "/api/notification/notifications";
export const TEMPLATES = "/api/notification/templates";
export const NOTIFICATION_STATUSES = ["new", "sent", "read", "failed"] as const;

/** The send action a notification offers by its status: a failed one is retried, a queued one is
 * sent now; a sent or read one has none (the server leaves it alone). */
export function sendAction(status: unknown): "retry" | "sendNow" | null {
  if (status === "failed") return "retry";
  if (status === "new") return "sendNow";
  return null;
}

/** The JSON object typed into the preview's data box, or an error message key. */
export function parseData(text: string): { data: Record<string, unknown> } | { error: "admin.invalidJson" } {
  if (!text.trim()) return { data: {} };
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return { data: v as Record<string, unknown> };
  } catch {
    // falls through
  }
  return { error: "admin.invalidJson" };
}

function failure(e: unknown, fallback: string) {
  toast.error(e instanceof ApiError ? e.first : fallback);
}

/** Refetches the notification lists now and while the delivery job runs. */
function useRefreshSoon() {
  const qc = useQueryClient();
  return () => {
    const again = () => {
      void qc.invalidateQueries({ queryKey: ["entity", NOTIFICATIONS, "filtered"] });
      void qc.invalidateQueries({ queryKey: ["entity", NOTIFICATIONS, "list"] });
      void qc.invalidateQueries({ queryKey: ["admin", "notification"] });
    };
    again();
    for (const ms of [1000, 3000, 6000]) setTimeout(again, ms);
  };
}

/** "Retry" / "Send now" on one notification, with the result as a toast. */
function useSend() {
  const { t } = useTranslation();
  const refresh = useRefreshSoon();
  return useMutation({
    mutationFn: (id: string) => api.post(`${NOTIFICATIONS}/{id}/send`, { params: { path: { id } } }),
    onSuccess: (r) => {
      if (r.queued) toast.success(t("notifications.queued"));
      else toast.info(t("notifications.notQueued", { status: t(`notifications.status.${r.status}`, { defaultValue: r.status }) }));
      refresh();
    },
    onError: (e) => failure(e, t("admin.failed")),
  });
}

function StatusBadge({ status }: { status: unknown }) {
  const { t } = useTranslation();
  const s = String(status ?? "");
  const tone = s === "failed" ? "border-red-300 bg-red-50 text-red-900" : s === "sent" || s === "read" ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "";
  return (
    <Badge className={tone} data-status={s} data-testid="notification-status">
      {t(`notifications.status.${s}`, { defaultValue: s })}
    </Badge>
  );
}

function SendButton({ row, size = "sm" }: { row: Row; size?: "sm" | "default" }) {
  const { t } = useTranslation();
  const send = useSend();
  const action = sendAction(row.status);
  if (!action) return null;
  return (
    <Button size={size} variant={action === "retry" ? "default" : "outline"} disabled={send.isPending} onClick={() => send.mutate(row.id)} data-testid={`notification-${action}`}>
      {t(`notifications.${action}`)}
    </Button>
  );
}

/** The outbox: every notification with its status, attempts and last error; retry one, or send
 * every due one. */
export function NotificationsView({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const refresh = useRefreshSoon();
  // `?open=<id>` (the server's log links a kept message so) opens that message at once.
  const [open, setOpen] = useState<string | null>(() => new URLSearchParams(globalThis.location?.search ?? "").get("open"));
  const sendAll = useMutation({
    mutationFn: () => api.post("/api/notification/topics/send-all"),
    onSuccess: (r) => {
      toast.success(t("notifications.sentAll", { count: r.queued }));
      refresh();
    },
    onError: (e) => failure(e, t("admin.failed")),
  });
  const columns: Column[] = [
    {
      title: t("notifications.created"),
      render: (r) => (
        <button type="button" className="underline-offset-4 hover:underline" onClick={() => setOpen(r.id)} data-testid="notification-open">
          {when(r.createdAt, lang)}
        </button>
      ),
    },
    { title: t("notifications.subject"), render: (r) => String(r.title ?? ""), className: "max-w-56 truncate py-2 pr-3" },
    { title: t("notifications.receiver"), render: (r) => String(r.reciever ?? ""), className: "max-w-48 truncate py-2 pr-3" },
    { title: t("notifications.method"), render: (r) => t(`notifications.methods.${String(r.method ?? "")}`, { defaultValue: String(r.method ?? "") }) },
    { title: t("orders.status"), render: (r) => <StatusBadge status={r.status} /> },
    { title: t("notifications.attempts"), render: (r) => <span data-testid="notification-attempts">{String(r.attempts ?? 0)}</span> },
    {
      title: t("notifications.error"),
      render: (r) => (
        <span title={String(r.error ?? "")} data-testid="notification-error">
          {String(r.error ?? "")}
        </span>
      ),
      className: "max-w-64 truncate py-2 pr-3 text-xs",
    },
    { title: t("notifications.actions"), render: (r) => <SendButton row={r} /> },
  ];
  return (
    <>
      <FilteredList
        path={NOTIFICATIONS}
        title={t("notifications.title")}
        help={t("notifications.help")}
        statuses={NOTIFICATION_STATUSES}
        statusLabel={(s) => t(`notifications.status.${s}`)}
        columns={columns}
        testId="notifications-table"
        actions={
          <Button size="sm" disabled={sendAll.isPending} onClick={() => sendAll.mutate()} data-testid="notifications-send-all">
            {t("notifications.sendAll")}
          </Button>
        }
      />
      <Dialog open={!!open} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? <NotificationDialog id={open} lang={lang} /> : null}
      </Dialog>
    </>
  );
}

function NotificationDialog({ id, lang }: { id: string; lang: string }) {
  const { t } = useTranslation();
  return (
    <DialogContent title={t("notifications.title")} className="w-[min(48rem,calc(100vw-2rem))]">
      <NotificationPanel id={id} lang={lang} />
    </DialogContent>
  );
}

/** One notification's delivery: status, attempts, last error, when it is due, and its send action.
 * Shown in the outbox's dialog and under the generic form of a notification. */
export function NotificationPanel({ id, lang }: { id: string; lang: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const q = useQuery({ queryKey: ["admin", "notification", id], queryFn: () => api.get(`${NOTIFICATIONS}/{id}`, { params: { path: { id } } }) });
  const n = q.data;
  if (!n) return <p className="text-sm">{q.isError ? t("admin.failed") : t("admin.loading")}</p>;
  return (
    <section aria-labelledby={headingId} className="grid gap-3 rounded-lg border border-border p-3 text-sm" data-testid="notification-details">
      <h3 id={headingId} className="font-semibold">
        {String(n.title ?? "") || t("notifications.title")}
      </h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="font-semibold">{t("orders.status")}</dt>
        <dd>
          <StatusBadge status={n.status} />
        </dd>
        <dt className="font-semibold">{t("notifications.receiver")}</dt>
        <dd className="break-all">{String(n.reciever ?? "")}</dd>
        <dt className="font-semibold">{t("notifications.method")}</dt>
        <dd>{t(`notifications.methods.${String(n.method ?? "")}`, { defaultValue: String(n.method ?? "") })}</dd>
        <dt className="font-semibold">{t("notifications.attempts")}</dt>
        <dd data-testid="notification-attempts">{String(n.attempts ?? 0)}</dd>
        <dt className="font-semibold">{t("notifications.error")}</dt>
        <dd className="break-words" data-testid="notification-error">
          {String(n.error ?? "") || "—"}
        </dd>
        <dt className="font-semibold">{t("notifications.sendAfter")}</dt>
        <dd>{when(n.sendAfter, lang) || "—"}</dd>
      </dl>
      {n.data ? (
        <details>
          <summary className="cursor-pointer font-semibold">{t("notifications.data")}</summary>
          <pre className="mt-1 max-h-48 overflow-auto rounded bg-muted p-2 text-xs">{JSON.stringify(n.data, null, 2)}</pre>
        </details>
      ) : null}
      <div>
        <SendButton row={n} />
      </div>
      <MessageView id={id} />
    </section>
  );
}

/** The message as its recipient gets it (subject, text, HTML, links). While no channel is
 * configured (development) this is where a confirmation code or a reset link is read. */
function MessageView({ id }: { id: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const q = useQuery({ queryKey: ["admin", "notification", id, "message"], queryFn: () => api.get(`${NOTIFICATIONS}/{id}/message`, { params: { path: { id } } }) });
  const m = q.data;
  if (!m) return q.isError ? <p className="text-sm">{t("admin.failed")}</p> : null;
  return (
    <section aria-labelledby={headingId} className="grid gap-2" data-testid="notification-message">
      <h4 id={headingId} className="font-semibold">
        {t("notifications.message")}
      </h4>
      <p className="text-neutral-700">{t("notifications.messageHelp")}</p>
      {!m.delivered ? (
        <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-amber-950" data-testid="notification-outbox-only">
          {t("notifications.outboxOnly")}
        </p>
      ) : null}
      <p>
        <span className="font-semibold">{t("notifications.subject")}: </span>
        <span data-testid="notification-message-subject">{m.subject}</span>
      </p>
      {m.links.length ? (
        <div>
          <p className="font-semibold">{t("notifications.links")}</p>
          <ul className="grid gap-1" data-testid="notification-message-links">
            {m.links.map((l) => (
              <li key={l} className="break-all">
                <a href={l} className="underline underline-offset-4" target="_blank" rel="noreferrer noopener">
                  {l}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <details open>
        <summary className="cursor-pointer font-semibold">{t("notifications.textVersion")}</summary>
        <pre className="mt-1 max-h-72 overflow-auto whitespace-pre-wrap break-words rounded bg-muted p-2 text-xs" data-testid="notification-message-text">
          {m.text}
        </pre>
      </details>
      {m.html ? (
        <details>
          <summary className="cursor-pointer font-semibold">{t("notifications.htmlVersion")}</summary>
          {/* Sandboxed: no script, no same-origin access; the HTML is made from escaped text. */}
          <iframe title={t("notifications.htmlVersion")} sandbox="" srcDoc={m.html} className="mt-1 h-80 w-full rounded border border-border bg-white" />
        </details>
      ) : null}
    </section>
  );
}

/** The preview of a template: data typed as JSON and a language in, the rendered subject and body
 * out (as text: a preview never runs the template's markup). */
export function TemplatePreview({ id, lang }: { id: string; lang: string }) {
  const { t } = useTranslation();
  const base = useId();
  const [text, setText] = useState("{}");
  const [language, setLanguage] = useState<Language>(isLanguage(lang) ? lang : "en");
  const [invalid, setInvalid] = useState(false);
  const render = useMutation({
    mutationFn: (data: Record<string, unknown>) => api.post(`${TEMPLATES}/{id}/render`, { params: { path: { id } }, body: { data, language } }),
    onError: (e) => failure(e, t("admin.failed")),
  });
  return (
    <section aria-labelledby={`${base}-h`} className="grid gap-3 rounded-lg border border-border p-3" data-testid="template-preview">
      <h3 id={`${base}-h`} className="font-semibold">
        {t("notifications.preview")}
      </h3>
      <p className="text-sm text-neutral-700">{t("notifications.previewHelp")}</p>
      <form
        className="grid gap-3"
        aria-labelledby={`${base}-h`}
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = parseData(text);
          setInvalid("error" in parsed);
          if ("data" in parsed) render.mutate(parsed.data);
        }}
      >
        <div className="grid gap-1.5">
          <Label htmlFor={`${base}-data`}>{t("notifications.previewData")}</Label>
          <Textarea
            id={`${base}-data`}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? `${base}-err` : undefined}
            spellCheck={false}
            rows={4}
          />
          {invalid ? (
            <p id={`${base}-err`} className="text-sm text-destructive">
              {t("admin.invalidJson")}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap items-end gap-3">
          <div className="grid gap-1.5">
            <Label htmlFor={`${base}-lang`}>{t("notifications.language")}</Label>
            <Select id={`${base}-lang`} value={language} onChange={(e) => isLanguage(e.target.value) && setLanguage(e.target.value)} className="w-24">
              {LANGUAGES.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </Select>
          </div>
          <Button type="submit" variant="outline" disabled={render.isPending} data-testid="template-preview-run">
            {t("notifications.preview")}
          </Button>
        </div>
      </form>
      {render.data ? (
        <div className="grid gap-2 text-sm" data-testid="template-preview-result" aria-live="polite">
          <p>
            <span className="font-semibold">{t("notifications.subject")}: </span>
            <span data-testid="template-preview-subject">{render.data.subject}</span>
          </p>
          <div>
            <p className="font-semibold">{t("notifications.body")}</p>
            <pre className="mt-1 max-h-72 overflow-auto whitespace-pre-wrap rounded bg-muted p-2 text-xs" data-testid="template-preview-body">
              {render.data.body}
            </pre>
          </div>
        </div>
      ) : null}
    </section>
  );
}
