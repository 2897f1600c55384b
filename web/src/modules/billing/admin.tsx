import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toast } from "sonner";
import { listQuery, type Row } from "@/api/entities";
import { ApiError, request, requestPage } from "@/api/http";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";

const INBOX = "/api/billing/webhooks";
const STATUSES = ["received", "processed", "ignored", "rejected", "failed"] as const;
const PAGE = 20;

function when(at: unknown, lang: string): string {
  if (typeof at !== "string") return "";
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toLocaleString(lang, { dateStyle: "short", timeStyle: "medium" });
}

function pretty(v: unknown): string {
  if (typeof v !== "string") return JSON.stringify(v, null, 2);
  try {
    return JSON.stringify(JSON.parse(v), null, 2);
  } catch {
    return v;
  }
}

/** The payment webhook inbox: every delivery as received, what came of it, and a replay action. */
export function InboxView({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<Row | null>(null);
  const list = useQuery({
    queryKey: ["entity", INBOX, "inbox", status, page],
    queryFn: ({ signal }) =>
      requestPage<Row[]>("GET", INBOX, {
        query: listQuery({ page, size: PAGE, sort: { field: "createdAt", desc: true }, filters: status ? { status } : undefined }),
        signal,
      }),
    placeholderData: (p) => p,
  });
  const replay = useMutation({
    mutationFn: (id: string) => request<Row>("POST", `${INBOX}/${id}/replay`, { body: {} }),
    onSuccess: (row) => {
      toast.success(t("inbox.replayed"));
      setOpen(row);
      void qc.invalidateQueries({ queryKey: ["entity", INBOX] });
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : t("admin.failed")),
  });
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title" className="text-xl font-semibold">
        {t("inbox.title")}
      </h1>
      <p className="mt-1 text-sm text-neutral-700">{t("inbox.help")}</p>
      <fieldset className="mt-4 flex flex-wrap gap-2">
        <legend className="sr-only">{t("orders.filter")}</legend>
        {["", ...STATUSES].map((s) => (
          <Button
            key={s || "all"}
            size="sm"
            variant={status === s ? "default" : "outline"}
            aria-pressed={status === s}
            onClick={() => {
              setStatus(s);
              setPage(0);
            }}
          >
            {s ? t(`inbox.status.${s}`) : t("orders.all")}
          </Button>
        ))}
      </fieldset>
      <table className="mt-4 w-full text-left text-sm" data-testid="inbox-table">
        <thead className="border-b border-border text-xs uppercase tracking-wide text-neutral-600">
          <tr>
            <th className="py-2 pr-3">{t("inbox.received")}</th>
            <th className="py-2 pr-3">{t("inbox.provider")}</th>
            <th className="py-2 pr-3">{t("inbox.event")}</th>
            <th className="py-2 pr-3">{t("orders.status")}</th>
            <th className="py-2 pr-3">{t("inbox.verified")}</th>
            <th className="py-2 pr-3">{t("inbox.result")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className="border-b border-border hover:bg-muted">
              <td className="py-2 pr-3">
                <button type="button" className="underline-offset-4 hover:underline" onClick={() => setOpen(r)} data-testid="inbox-open">
                  {when(r.createdAt, lang)}
                </button>
              </td>
              <td className="py-2 pr-3">{String(r.provider ?? "")}</td>
              <td className="max-w-48 truncate py-2 pr-3 font-mono text-xs">{String(r.eventKey ?? "")}</td>
              <td className="py-2 pr-3" data-testid="inbox-status">
                {t(`inbox.status.${String(r.status)}`, { defaultValue: String(r.status) })}
              </td>
              <td className="py-2 pr-3">{r.verified ? t("inbox.yes") : t("inbox.no")}</td>
              <td className="max-w-64 truncate py-2 pr-3">{String(r.result ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!list.isPending && rows.length === 0 ? <p className="mt-4 text-sm text-neutral-700">{t("admin.noFound")}</p> : null}
      <nav aria-label={t("orders.pages")} className="mt-4 flex items-center gap-2">
        <Button size="sm" variant="outline" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
          {t("admin.previous")}
        </Button>
        <span className="text-sm">{t("admin.page", { page: page + 1 })}</span>
        <Button size="sm" variant="outline" disabled={rows.length < PAGE} onClick={() => setPage((p) => p + 1)}>
          {t("admin.next")}
        </Button>
      </nav>
      <Dialog open={!!open} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? (
          <DialogContent title={`${String(open.provider)} · ${when(open.createdAt, lang)}`}>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="font-semibold">{t("orders.status")}</dt>
              <dd>{t(`inbox.status.${String(open.status)}`, { defaultValue: String(open.status) })}</dd>
              <dt className="font-semibold">{t("inbox.result")}</dt>
              <dd>{String(open.result ?? "")}</dd>
              <dt className="font-semibold">{t("inbox.invoice")}</dt>
              <dd className="font-mono text-xs">{String(open.invoiceId ?? "—")}</dd>
              <dt className="font-semibold">{t("inbox.processed")}</dt>
              <dd>{when(open.processedAt, lang) || "—"}</dd>
            </dl>
            <h3 className="mt-4 font-semibold">{t("inbox.body")}</h3>
            <pre className="mt-1 max-h-64 overflow-auto rounded bg-muted p-2 text-xs">{pretty(open.body)}</pre>
            <h3 className="mt-4 font-semibold">{t("inbox.headers")}</h3>
            <pre className="mt-1 max-h-40 overflow-auto rounded bg-muted p-2 text-xs">{pretty(open.headers)}</pre>
            <Button className="mt-4" disabled={replay.isPending} onClick={() => replay.mutate(open.id)} data-testid="inbox-replay">
              {t("inbox.replay")}
            </Button>
          </DialogContent>
        ) : null}
      </Dialog>
    </section>
  );
}
