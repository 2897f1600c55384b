import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "@/i18n";
import { toast } from "sonner";
import { type Row } from "@/api/entities";
import { type Column, FilteredList, when } from "@/admin/list";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { useProviders } from "./providers";

const INBOX = "/api/billing/webhooks";
const STATUSES = ["received", "processed", "ignored", "rejected", "failed"] as const;

function pretty(v: unknown): string {
  if (typeof v !== "string") return JSON.stringify(v, null, 2);
  try {
    return JSON.stringify(JSON.parse(v), null, 2);
  } catch {
    return v;
  }
}

/** Which payment providers buyers are offered, with their currencies (from the server's settings). */
function EnabledProviders() {
  const { t } = useTranslation();
  const providers = useProviders();
  if (!providers.data) return null;
  return (
    <section aria-labelledby="enabled-providers" className="mb-4 rounded-md border p-3 text-sm" data-testid="enabled-providers">
      <h2 id="enabled-providers" className="font-semibold">
        {t("inbox.enabled")}
      </h2>
      <ul className="mt-1 flex flex-wrap gap-2">
        {providers.data.map((p) => (
          <li key={p.provider} className="rounded-full bg-muted px-3 py-1">
            {t(`commerce.providers.${p.provider}`, { defaultValue: p.provider })} · {p.currencies.length ? p.currencies.map((c) => c.toUpperCase()).join(", ") : t("inbox.anyCurrency")}
            {p.statusApi ? ` · ${t("inbox.statusApi")}` : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The payment webhook inbox: every delivery as received, what came of it, and a replay action. */
export function InboxView({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [open, setOpen] = useState<Row | null>(null);
  const replay = useMutation({
    mutationFn: (id: string) => api.post(`${INBOX}/{id}/replay`, { params: { path: { id } } }),
    onSuccess: (row) => {
      toast.success(t("inbox.replayed"));
      setOpen(row);
      void qc.invalidateQueries({ queryKey: ["entity", INBOX] });
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : t("admin.failed")),
  });
  const status = (r: Row) => t(`inbox.status.${String(r.status)}`, { defaultValue: String(r.status) });
  const columns: Column[] = [
    {
      title: t("inbox.received"),
      render: (r) => (
        <button type="button" className="underline-offset-4 hover:underline" onClick={() => setOpen(r)} data-testid="inbox-open">
          {when(r.createdAt, lang)}
        </button>
      ),
    },
    { title: t("inbox.provider"), render: (r) => String(r.provider ?? "") },
    { title: t("inbox.event"), render: (r) => String(r.eventKey ?? ""), className: "max-w-48 truncate py-2 pr-3 font-mono text-xs" },
    { title: t("orders.status"), render: (r) => <span data-testid="inbox-status">{status(r)}</span> },
    { title: t("inbox.verified"), render: (r) => (r.verified ? t("inbox.yes") : t("inbox.no")) },
    { title: t("inbox.result"), render: (r) => String(r.result ?? ""), className: "max-w-64 truncate py-2 pr-3" },
  ];
  return (
    <>
      <EnabledProviders />
      <FilteredList path={INBOX} title={t("inbox.title")} help={t("inbox.help")} statuses={STATUSES} statusLabel={(s) => t(`inbox.status.${s}`)} columns={columns} testId="inbox-table" />
      <Dialog open={!!open} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? (
          <DialogContent title={`${String(open.provider)} · ${when(open.createdAt, lang)}`}>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="font-semibold">{t("orders.status")}</dt>
              <dd>{status(open)}</dd>
              <dt className="font-semibold">{t("inbox.verified")}</dt>
              <dd data-testid="inbox-verified">{open.verified ? t("inbox.yes") : t("inbox.no")}</dd>
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
    </>
  );
}
