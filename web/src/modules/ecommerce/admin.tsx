import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { TFunction } from "@/i18n";
import { toast } from "sonner";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import type { components } from "@/api/schema";
import { Link } from "react-router";
import type { ListParams, Row } from "@/api/entities";
import { useMeta, valueName } from "@/api/meta";
import { actorName, usePeople } from "@/admin/audit-parts";
import { parseActor } from "@/admin/audit-diff";
import { useTrustT } from "@/admin/trust-i18n";
import { type Column, FilteredList, RelatedList, when } from "@/admin/list";
import { money, type OrderDetails } from "./api";
import { StatusBadge } from "./cart";
import { Button } from "@/ui/button";
import { Card } from "@/ui/card";
import { DialogContent, Dialog } from "@/ui/dialog";
import { Label, Select, Textarea } from "@/ui/input";
import { useShopT } from "./i18n";

/** Every order status, in the order of the lifecycle. */
export const ORDER_STATUSES = ["new", "paying", "approving", "packaging", "delivering", "delivered", "canceled"] as const;
type OrderStatus = (typeof ORDER_STATUSES)[number];
const ORDERS = "/api/ecommerce/orders";

const detailsKey = (id: string) => ["admin", "order", id] as const;

function failure(e: unknown, fallback: string) {
  toast.error(e instanceof ApiError ? e.first : fallback);
}

type Summary = components["schemas"]["EcommerceOrderSummary"];

/** What an enum value of another module's entity is called, from the content model's words. */
function useValueWords(lang: string): (entity: string, field: string, value: string | null | undefined) => string {
  const meta = useMeta();
  return (entity, field, value) => {
    if (!value) return "";
    const [module, name] = entity.split(".");
    const f = meta.data?.entities.find((e) => e.module === module && e.name === name)?.fields.find((x) => x.name === field);
    return f ? valueName(f, value, lang) : value;
  };
}

/** A search for an order: a number ("1042", "№ 1042") finds that order, anything else the addresses holding it. */
export function orderSearch(query: string): Pick<ListParams, "search" | "conditions"> {
  const number = /^(?:№|#|no\.?)?\s*(\d{1,12})$/i.exec(query.trim());
  return number ? { conditions: [{ column: "number", method: "eq", value: number[1]! }] } : { search: query.trim() };
}

/** The total an order's list shows: what checkout charges (or charged), else per currency. */
function orderTotal(r: Row, lang: string): string {
  const s = r as unknown as Partial<Summary>;
  if (s.checkoutTotal && s.billingModuleCurrency) return money(s.checkoutTotal, s.billingModuleCurrency, lang);
  return (s.total ?? []).map((x) => money(x.total, x.billingModuleCurrency, lang)).join(" · ") || "—";
}

/** The orders back office: search by number or address, filter by status, open one to see
 * everything about it and move it on. */
export function OrdersView({ lang }: { lang: string }) {
  const t = useShopT();
  const words = useValueWords(lang);
  const [open, setOpen] = useState<string | null>(null);
  const columns: Column[] = [
    {
      title: t("orders.number"),
      render: (r) => (
        <button type="button" className="font-medium underline-offset-4 hover:underline" onClick={() => setOpen(r.id)} data-testid="order-open">
          {typeof r.number === "number" ? t("orders.numbered", { number: r.number }) : t("orders.open")}
        </button>
      ),
    },
    { title: t("orders.created"), render: (r) => when(r.createdAt, lang) },
    {
      title: t("orders.customer"),
      render: (r) =>
        r.subjectId ? (
          <Link className="underline-offset-4 hover:underline" to={`/admin/rbac/subject?edit=${String(r.subjectId)}`}>
            {String(r.email ?? "") || t("orders.account")}
          </Link>
        ) : (
          String(r.email ?? "") || "—"
        ),
    },
    { title: t("orders.total"), render: (r) => orderTotal(r, lang), className: "py-2 pr-3 tabular-nums whitespace-nowrap" },
    { title: t("orders.status"), render: (r) => <StatusBadge status={String(r.status)} /> },
    {
      title: t("orders.payment"),
      render: (r) =>
        r.provider
          ? `${t(`commerce.providers.${String(r.provider)}`, { defaultValue: String(r.provider) })} · ${words("billing.invoice", "status", r.paymentStatus as string)}`
          : "—",
    },
  ];
  return (
    <>
      <FilteredList
        path={ORDERS}
        title={t("orders.title")}
        statuses={ORDER_STATUSES}
        statusLabel={(s) => t(`commerce.status.${s}`)}
        columns={columns}
        testId="orders-table"
        search={{ label: t("orders.search"), params: orderSearch }}
        extra={{
          key: "summaries",
          fetch: async (rows) => (await api.get(`${ORDERS}/summaries`, { params: { query: { ids: rows.map((r) => r.id).join(",") } } })) as unknown as Row[],
        }}
      />
      <Dialog open={!!open} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? <OrderDetails id={open} lang={lang} /> : null}
      </Dialog>
    </>
  );
}

/** 'Order № 1042', or 'Order' from a server that gives no numbers yet (never the id). */
function adminOrderTitle(o: OrderDetails | undefined, t: TFunction): string {
  return typeof o?.number === "number" ? t("shop.orderNumber", { number: o.number }) : t("orders.number");
}

function OrderDetails({ id, lang }: { id: string; lang: string }) {
  const t = useShopT();
  const tt = useTrustT();
  const words = useValueWords(lang);
  const qc = useQueryClient();
  const q = useQuery({ queryKey: detailsKey(id), queryFn: (): Promise<OrderDetails> => api.get(`${ORDERS}/{id}/details`, { params: { path: { id } } }) });
  const done = (msg: string) => {
    toast.success(msg);
    void qc.invalidateQueries({ queryKey: detailsKey(id) });
    void qc.invalidateQueries({ queryKey: ["entity", ORDERS] });
  };
  const move = useMutation({
    mutationFn: (status: OrderStatus) => api.patch(`${ORDERS}/{id}`, { params: { path: { id } }, body: { status } }),
    onSuccess: () => done(t("orders.moved")),
    onError: (e) => failure(e, t("admin.failed")),
  });
  const o = q.data;
  // Who moved the order, by their address (never 'subject:<id>').
  const people = usePeople(
    (o?.statusChanges ?? []).flatMap((c) => {
      const a = parseActor(c.actor ?? "");
      return a.kind === "subject" ? [a.id] : [];
    }),
  );
  return (
    <DialogContent title={adminOrderTitle(o, t)} className="w-[min(56rem,calc(100vw-2rem))]">
      {!o ? (
        <p>{t("admin.loading")}</p>
      ) : (
        <div className="space-y-6 text-sm" data-testid="order-details" data-order-id={o.id}>
          <div className="flex flex-wrap items-center gap-3">
            <StatusBadge status={o.status} />
            <span>{o.email}</span>
            <span className="text-neutral-700">{when(o.createdAt, lang)}</span>
          </div>
          <div>
            <h3 className="font-semibold">{t("orders.next")}</h3>
            {o.nextStatuses.length ? (
              <div className="mt-2 flex flex-wrap gap-2">
                {o.nextStatuses.map((s) => (
                  <Button key={s} size="sm" disabled={move.isPending} onClick={() => move.mutate(s)} data-testid={`order-move-${s}`}>
                    {t("orders.moveTo", { status: t(`commerce.status.${s}`) })}
                  </Button>
                ))}
              </div>
            ) : (
              <p className="mt-1 text-neutral-700">{t("orders.final")}</p>
            )}
          </div>
          <section>
            <h3 className="font-semibold">{t("orders.lines")}</h3>
            <table className="mt-2 w-full text-left">
              <thead className="text-xs text-neutral-600">
                <tr>
                  <th className="pr-3">{t("orders.product")}</th>
                  <th className="pr-3">{t("commerce.quantity")}</th>
                  <th>{t("orders.lineTotal")}</th>
                </tr>
              </thead>
              <tbody>
                {o.ordersToProducts.map((l) => (
                  <tr key={l.id}>
                    <td className="pr-3">{l.product?.title?.[lang] || l.product?.adminTitle || Object.values(l.product?.title ?? {}).find(Boolean) || t("orders.product")}</td>
                    <td className="pr-3">{l.quantity}</td>
                    <td>{l.total.map((x) => money(x.total, x.billingModuleCurrency, lang)).join(" · ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="mt-2 font-semibold">
              {t("site.total")}: {o.checkoutTotal ? money(o.checkoutTotal, o.billingModuleCurrency, lang) : o.total.map((x) => money(x.total, x.billingModuleCurrency, lang)).join(" · ") || "—"}
            </p>
          </section>
          <RelatedList
            title={t("orders.intents")}
            items={o.paymentIntents}
            testId="order-intent"
            render={(i) =>
              [money(i.amount, o.billingModuleCurrency, lang), words("billing.payment-intent", "type", i.type), i.interval ? words("billing.payment-intent", "interval", i.interval) : "", words("billing.payment-intent", "status", i.status)]
                .filter(Boolean)
                .join(" · ")
            }
          />
          <RelatedList
            title={t("orders.invoices")}
            items={o.invoices}
            testId="order-invoice"
            render={(i) =>
              `${money(i.amount, o.billingModuleCurrency, lang)} · ${t(`commerce.providers.${i.provider}`, { defaultValue: i.provider ?? "" })} · ${words("billing.invoice", "status", i.status)} · ${when(i.createdAt, lang)}`
            }
          />
          <section>
            <h3 className="font-semibold">{t("orders.history")}</h3>
            <ol className="mt-1 space-y-1" data-testid="order-history">
              {o.statusChanges.map((c) => (
                <li key={c.id}>
                  {when(c.createdAt, lang)} · {t(`commerce.status.${c.from}`)} → {t(`commerce.status.${c.to}`)} · {c.actor ? actorName(c.actor, people, tt) : ""}
                  {c.override ? ` · ${t("orders.override")}` : ""}
                  {c.reason ? ` · “${c.reason}”` : ""}
                </li>
              ))}
            </ol>
          </section>
          <OverrideForm id={id} current={o.status} onDone={() => done(t("orders.corrected"))} />
        </div>
      )}
    </DialogContent>
  );
}

/** The explicit correction: any status, with a reason that goes into the history. */
function OverrideForm({ id, current, onDone }: { id: string; current: string; onDone: () => void }) {
  const t = useShopT();
  const [status, setStatus] = useState<OrderStatus | "">("");
  const [reason, setReason] = useState("");
  const save = useMutation({
    mutationFn: (to: OrderStatus) => api.post(`${ORDERS}/{id}/override`, { params: { path: { id } }, body: { status: to, reason } }),
    onSuccess: () => {
      setReason("");
      setStatus("");
      onDone();
    },
    onError: (e) => failure(e, t("admin.failed")),
  });
  return (
    <details className="rounded-lg border border-border p-3">
      <summary className="cursor-pointer font-semibold">{t("orders.overrideTitle")}</summary>
      <form
        className="mt-3 space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (status) save.mutate(status);
        }}
      >
        <p className="text-neutral-700">{t("orders.overrideHelp")}</p>
        <div>
          <Label htmlFor={`override-status-${id}`}>{t("orders.status")}</Label>
          <Select id={`override-status-${id}`} value={status} onChange={(e) => setStatus(e.target.value as OrderStatus | "")} required>
            <option value="">{t("admin.selectPlaceholder")}</option>
            {ORDER_STATUSES.filter((s) => s !== current).map((s) => (
              <option key={s} value={s}>
                {t(`commerce.status.${s}`)}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor={`override-reason-${id}`}>{t("orders.reason")}</Label>
          <Textarea id={`override-reason-${id}`} value={reason} onChange={(e) => setReason(e.target.value)} minLength={3} maxLength={2000} required />
        </div>
        <Button type="submit" variant="destructive" disabled={save.isPending}>
          {t("orders.overrideSubmit")}
        </Button>
      </form>
    </details>
  );
}

/** Paid orders and revenue per currency per day (the document's EcommerceOrderStats). */
type Stats = components["schemas"]["EcommerceOrderStats"];

/** Dashboard card: paid orders and revenue per currency over the last 30 days, as bars per day. */
export function SalesCard({ lang }: { lang: string }) {
  const t = useShopT();
  const q = useQuery({ queryKey: ["admin", "order-stats"], queryFn: (): Promise<Stats> => api.get(`${ORDERS}/stats`, { params: { query: { days: 30 } } }) });
  const days = lastDays(30);
  return (
    <Card className="max-w-3xl" data-testid="sales-card">
      <h2 className="text-lg font-semibold">{t("orders.salesTitle")}</h2>
      {!q.data ? (
        <p className="mt-2 text-sm">{q.isError ? t("admin.failed") : t("admin.loading")}</p>
      ) : q.data.currencies.length === 0 ? (
        <p className="mt-2 text-sm text-neutral-700">{t("orders.noSales")}</p>
      ) : (
        q.data.currencies.map((c) => {
          const rows = q.data.days.filter((d) => d.currency === c.slug);
          const byDay = new Map(rows.map((d) => [d.day, d]));
          const total = q.data.totals.find((x) => x.currency === c.slug);
          return (
            <div key={c.id} className="mt-4" data-testid={`sales-${c.slug}`}>
              <p className="text-sm" data-testid={`sales-summary-${c.slug}`}>
                <span className="font-semibold">{money(total?.revenue ?? "0", c, lang)}</span> · {t("orders.paidCount", { count: total?.orders ?? 0 })}
              </p>
              <Bars
                label={t("orders.chartLabel", { currency: c.slug.toUpperCase() })}
                values={days.map((d) => ({ key: d, value: Number(byDay.get(d)?.revenue ?? 0), text: `${d}: ${money(byDay.get(d)?.revenue ?? "0", c, lang)}, ${t("orders.paidCount", { count: byDay.get(d)?.orders ?? 0 })}` }))}
              />
            </div>
          );
        })
      )}
    </Card>
  );
}

/** The last `n` days as YYYY-MM-DD (UTC, as the server groups them), oldest first. */
export function lastDays(n: number, now = Date.now()): string[] {
  return Array.from({ length: n }, (_, i) => new Date(now - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** A bar per value, scaled to the largest; each bar's title and the hidden list say its figure. */
function Bars({ label, values }: { label: string; values: { key: string; value: number; text: string }[] }) {
  const max = Math.max(1, ...values.map((v) => v.value));
  const w = 12;
  const h = 80;
  return (
    <figure className="mt-2">
      <svg role="img" aria-label={label} viewBox={`0 0 ${values.length * w} ${h}`} className="h-24 w-full" preserveAspectRatio="none">
        {values.map((v, i) => {
          const bh = v.value > 0 ? Math.max(2, (v.value / max) * (h - 2)) : 0;
          return (
            <rect key={v.key} x={i * w + 1} y={h - bh} width={w - 2} height={bh} className="fill-emerald-700">
              <title>{v.text}</title>
            </rect>
          );
        })}
      </svg>
      <div className="flex justify-between text-xs text-neutral-700" aria-hidden="true">
        <span>{values[0]?.key}</span>
        <span>{values[values.length - 1]?.key}</span>
      </div>
      <figcaption className="sr-only">
        <ul>
          {values
            .filter((v) => v.value > 0)
            .map((v) => (
              <li key={v.key}>{v.text}</li>
            ))}
        </ul>
      </figcaption>
    </figure>
  );
}
