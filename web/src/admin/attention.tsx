import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useEditorT } from "@/admin/editor-i18n";
import { api, entityRoute } from "@/api/client";
import { entityName, type Meta, useMeta } from "@/api/meta";
import type { components } from "@/api/schema";
import { formatPrice } from "@/site/content";
import { Card } from "@/ui/card";

type Stats = components["schemas"]["EcommerceOrderStats"];

/** How many rows of `path` match `column = value` (one row read, the count from the header). */
async function countWhere(path: string, column: string, value: string): Promise<number> {
  const r = await entityRoute<unknown[]>("GET", path, { query: { filters: JSON.stringify({ and: [{ column, method: "eq", value }] }), limit: 1, count: true } });
  return r.total ?? 0;
}

/** Paid orders and revenue (per currency) of today and of this month, from the daily stats (UTC days). */
export function periods(stats: Stats, now = new Date()): { today: { orders: number; revenue: Map<string, number> }; month: { orders: number; revenue: Map<string, number> } } {
  const day = now.toISOString().slice(0, 10);
  const month = day.slice(0, 7);
  const sum = (rows: Stats["days"]) => {
    const revenue = new Map<string, number>();
    for (const r of rows) revenue.set(r.currency, (revenue.get(r.currency) ?? 0) + Number(r.revenue));
    return { orders: rows.reduce((n, r) => n + r.orders, 0), revenue };
  };
  return { today: sum(stats.days.filter((d) => d.day === day)), month: sum(stats.days.filter((d) => d.day.startsWith(month))) };
}

/** What waits for someone: new form submissions, scheduled publications, failed mails and jobs. */
export interface Waiting {
  key: string;
  count: number;
  to: string;
}

async function waiting(meta: Meta): Promise<Waiting[]> {
  const has = (m: string, n: string) => meta.entities.some((e) => e.module === m && e.name === n);
  const asks: Promise<Waiting>[] = [];
  if (has("crm", "request")) asks.push(countWhere("/api/crm/requests", "status", "new").then((count) => ({ key: "requests", count, to: "/admin/crm/request" })));
  // One request counts every publishable entity's scheduled records; the link opens the one with most.
  asks.push(
    api.get("/api/platform/scheduled").then((s) => {
      const first = s.entities[0]?.entity.split(".") ?? [];
      return { key: "scheduled", count: s.total, to: first.length === 2 ? `/admin/${first[0]}/${first[1]}` : "/admin" };
    }),
  );
  if (has("notification", "notification")) asks.push(countWhere("/api/notification/notifications", "status", "failed").then((count) => ({ key: "failedMails", count, to: "/admin/notification/notification" })));
  if (has("platform", "job")) asks.push(countWhere("/api/platform/jobs", "status", "dead").then((count) => ({ key: "failedJobs", count, to: "/admin/platform/job" })));
  return Promise.all(asks);
}

/** The start page's first card: paid orders today and this month, and what waits for someone. */
export function AttentionCard({ lang }: { lang: string }) {
  const t = useEditorT();
  const meta = useMeta();
  const stats = useQuery({ queryKey: ["admin", "order-stats", 31], queryFn: (): Promise<Stats> => api.get("/api/ecommerce/orders/stats", { params: { query: { days: 31 } } }) });
  const wait = useQuery({ queryKey: ["admin", "waiting"], enabled: !!meta.data, queryFn: () => waiting(meta.data!), staleTime: 30_000 });
  const p = stats.data ? periods(stats.data) : null;
  const sum = (slug: string, v: number) => {
    const currency = stats.data?.currencies.find((c) => c.slug === slug);
    return currency ? formatPrice({ amount: String(v), currency }, lang) : "—";
  };
  const sums = (revenue: Map<string, number>) => [...revenue.entries()].map(([slug, v]) => sum(slug, v)).join(" · ") || "—";
  const name = (m: string, n: string) => {
    const e = meta.data?.entities.find((x) => x.module === m && x.name === n);
    return e ? entityName(e, lang, true) : "";
  };
  return (
    <Card className="max-w-3xl" data-testid="attention-card">
      <h2 className="text-lg font-semibold">{t("ed.dashboard.title")}</h2>
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
        {p
          ? (
              [
                ["today", p.today],
                ["month", p.month],
              ] as const
            ).map(([k, v]) => (
              <div key={k} className="rounded-md border border-border p-3" data-testid={`paid-${k}`}>
                <dt className="text-xs text-neutral-700">{t(`ed.dashboard.${k}`)}</dt>
                <dd className="text-xl font-semibold tabular-nums">{sums(v.revenue)}</dd>
                <dd className="text-xs text-neutral-700">{t("orders.paidCount", { count: v.orders })}</dd>
              </div>
            ))
          : null}
        {(wait.data ?? []).map((w) => (
          <div key={w.key} className="rounded-md border border-border p-3" data-testid={`waiting-${w.key}`} data-count={w.count}>
            <dt className="text-xs text-neutral-700">{t(`ed.dashboard.${w.key}`)}</dt>
            <dd className={w.count > 0 && w.key.startsWith("failed") ? "text-xl font-semibold text-destructive" : "text-xl font-semibold"}>
              <Link className="underline-offset-4 hover:underline" to={w.to}>
                {w.count}
              </Link>
            </dd>
            <dd className="text-xs text-neutral-700">{w.key === "requests" ? name("crm", "request") : w.key === "failedMails" ? name("notification", "notification") : w.key === "failedJobs" ? name("platform", "job") : ""}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
