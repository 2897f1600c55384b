import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "@/i18n";
import { Link } from "react-router";
import { api } from "@/api/client";
import { Button } from "@/ui/button";
import { Card } from "@/ui/card";
import { chartGeometry, type Dashboard, DASHBOARD, type DayFigures, funnelSteps, overallConversion, percent, type Range, RANGES, type Top } from "./dashboard";

const dashboardKey = (days: number) => ["admin", "analytics", days] as const;

function useDashboard(days: Range) {
  return useQuery({
    queryKey: dashboardKey(days),
    queryFn: ({ signal }): Promise<Dashboard> => api.get(DASHBOARD, { params: { query: { days } }, signal }),
    placeholderData: (p) => p,
  });
}

function useNumber(lang: string) {
  const f = new Intl.NumberFormat(lang);
  return (n: number) => f.format(n);
}

/** The analytics screen of the admin: a period switch, views and visitors per day, the top pages
 * and referrers, devices, languages, events and the donation funnel. */
export default function AnalyticsScreen({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const [days, setDays] = useState<Range>(30);
  const q = useDashboard(days);
  const num = useNumber(lang);
  const d = q.data;
  return (
    <section aria-labelledby={headingId} className="grid max-w-5xl gap-6" data-testid="analytics" data-days={d?.days ?? ""}>
      <div className="flex flex-wrap items-center gap-4">
        <div>
          <h1 id={headingId} className="text-xl font-semibold">
            {t("analytics.title")}
          </h1>
          <p className="mt-1 text-sm text-neutral-700">{t("analytics.help")}</p>
        </div>
        <fieldset className="ml-auto flex gap-1 rounded-md bg-muted p-1">
          <legend className="sr-only">{t("analytics.range")}</legend>
          {RANGES.map((r) => (
            <Button key={r} size="sm" variant={days === r ? "default" : "ghost"} aria-pressed={days === r} onClick={() => setDays(r)} data-testid={`range-${r}`}>
              {t("analytics.days", { count: r })}
            </Button>
          ))}
        </fieldset>
      </div>
      {!d ? (
        <p className="text-sm" role={q.isError ? "alert" : undefined}>
          {q.isError ? t("admin.failed") : t("admin.loading")}
        </p>
      ) : (
        <>
          <dl className="grid grid-cols-2 gap-4 sm:max-w-md">
            <Figure label={t("analytics.views")} value={num(d.views)} testId="analytics-views" />
            <Figure label={t("analytics.visitors")} value={num(d.visitors)} testId="analytics-visitors" />
          </dl>
          <Card className="p-4">
            <DayChart label={t("analytics.chartLabel", { days: d.days })} days={d.perDay} lang={lang} />
          </Card>
          <div className="grid gap-6 md:grid-cols-2">
            <TopTable title={t("analytics.topPages")} column={t("analytics.page")} rows={d.topPages} lang={lang} testId="top-pages" />
            <TopTable title={t("analytics.topReferrers")} column={t("analytics.referrer")} rows={d.topReferrers} lang={lang} testId="top-referrers" />
          </div>
          <FunnelView funnel={d.funnel} lang={lang} />
          <div className="grid gap-6 md:grid-cols-3">
            <TopTable title={t("analytics.devices")} column={t("analytics.key")} rows={d.devices} lang={lang} testId="devices" />
            <TopTable title={t("analytics.languages")} column={t("analytics.key")} rows={d.languages} lang={lang} testId="languages" />
            <TopTable title={t("analytics.events")} column={t("analytics.key")} rows={d.events} lang={lang} testId="events" />
          </div>
        </>
      )}
    </section>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="rounded-lg border border-border p-3">
      <dt className="text-sm text-neutral-700">{label}</dt>
      <dd className="text-2xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

const W = 600;
const H = 160;

/** Views as bars and visitors as a line, per day; the figures are in a table below for anyone who
 * cannot see the chart. */
export function DayChart({ label, days, lang }: { label: string; days: DayFigures[]; lang: string }) {
  const { t } = useTranslation();
  const num = useNumber(lang);
  const g = chartGeometry(days, W, H);
  return (
    <figure data-testid="analytics-chart">
      <div className="flex items-start gap-2">
        <span className="w-10 text-right text-xs tabular-nums text-neutral-700" aria-hidden="true">
          {num(g.max)}
        </span>
        <svg role="img" aria-label={label} viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" className="h-40 w-full overflow-visible border-b border-l border-neutral-300">
          <line x1={0} x2={W} y1={H / 2} y2={H / 2} className="stroke-neutral-200" strokeDasharray="4 4" vectorEffect="non-scaling-stroke" />
          {g.bars.map((b, i) => (
            <rect key={b.day} x={b.x} y={b.y} width={b.width} height={b.height} className="fill-emerald-700">
              <title>{t("analytics.dayFigure", { day: b.day, views: num(days[i]!.views), visitors: num(days[i]!.visitors) })}</title>
            </rect>
          ))}
          {g.points.length > 1 ? <polyline points={g.line} fill="none" className="stroke-sky-700" strokeWidth={2} vectorEffect="non-scaling-stroke" /> : null}
        </svg>
      </div>
      <div className="ml-12 flex justify-between text-xs text-neutral-700" aria-hidden="true">
        <span>{days[0]?.day}</span>
        <span>{days[days.length - 1]?.day}</span>
      </div>
      <figcaption className="ml-12 mt-2 flex flex-wrap gap-4 text-sm">
        <span className="flex items-center gap-1">
          <span aria-hidden="true" className="inline-block h-3 w-3 rounded-sm bg-emerald-700" />
          {t("analytics.views")}
        </span>
        <span className="flex items-center gap-1">
          <span aria-hidden="true" className="inline-block h-0.5 w-4 bg-sky-700" />
          {t("analytics.visitors")}
        </span>
      </figcaption>
      <details className="ml-12 mt-2 text-sm">
        <summary className="cursor-pointer">{t("analytics.showTable")}</summary>
        <table className="mt-2 w-full max-w-md text-left" data-testid="per-day">
          <thead className="text-xs text-neutral-700">
            <tr>
              <th scope="col" className="pr-3">
                {t("analytics.day")}
              </th>
              <th scope="col" className="pr-3 text-right">
                {t("analytics.views")}
              </th>
              <th scope="col" className="text-right">
                {t("analytics.visitors")}
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day} className="border-t border-border">
                <td className="pr-3">{d.day}</td>
                <td className="pr-3 text-right tabular-nums">{num(d.views)}</td>
                <td className="text-right tabular-nums">{num(d.visitors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function TopTable({ title, column, rows, lang, testId }: { title: string; column: string; rows: Top[]; lang: string; testId: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const num = useNumber(lang);
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} className="font-semibold">
        {title}
      </h2>
      {rows.length ? (
        <table className="mt-2 w-full text-left text-sm" data-testid={testId}>
          <thead className="text-xs text-neutral-700">
            <tr>
              <th scope="col" className="py-1 pr-3">
                {column}
              </th>
              <th scope="col" className="py-1 text-right">
                {t("analytics.count")}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-t border-border">
                <td className="max-w-72 truncate py-1 pr-3 font-mono text-xs" title={r.key}>
                  {r.key}
                </td>
                <td className="py-1 text-right tabular-nums">{num(r.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="mt-2 text-sm text-neutral-700" data-testid={testId}>
          {t("analytics.nothing")}
        </p>
      )}
    </section>
  );
}

const FUNNEL_LABEL = { views: "analytics.funnelViews", started: "analytics.funnelStarted", paid: "analytics.funnelPaid" } as const;

function FunnelView({ funnel, lang }: { funnel: Dashboard["funnel"]; lang: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const num = useNumber(lang);
  return (
    <section aria-labelledby={headingId} data-testid="funnel">
      <h2 id={headingId} className="font-semibold">
        {t("analytics.funnel")}
      </h2>
      <ol className="mt-2 grid gap-3">
        {funnelSteps(funnel).map((s) => (
          <li key={s.key} data-testid={`funnel-${s.key}`} data-value={s.value}>
            <div className="flex flex-wrap items-baseline gap-x-3 text-sm">
              <span className="font-medium">{t(FUNNEL_LABEL[s.key])}</span>
              <span className="text-lg font-semibold tabular-nums">{num(s.value)}</span>
              {s.key !== "views" ? <span className="text-neutral-700">{t("analytics.ofPrevious", { percent: percent(s.ofPrevious, lang) })}</span> : null}
            </div>
            <div className="mt-1 h-3 rounded bg-muted" aria-hidden="true">
              <div className="h-3 rounded bg-emerald-700" style={{ width: `${s.value > 0 ? Math.max(0.5, s.ofFirst * 100) : 0}%` }} />
            </div>
          </li>
        ))}
      </ol>
      <p className="mt-2 text-sm text-neutral-700" data-testid="funnel-overall">
        {t("analytics.overall", { percent: percent(overallConversion(funnel), lang) })}
      </p>
    </section>
  );
}

/** Admin home card: views and visitors of the last 7 days, and the way to the full screen. */
export function VisitsCard({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const q = useDashboard(7);
  const num = useNumber(lang);
  return (
    <Card className="max-w-3xl" data-testid="visits-card">
      <div className="flex items-baseline gap-3">
        <h2 className="text-lg font-semibold">{t("analytics.cardTitle")}</h2>
        <Link to="/admin/analytics" className="ml-auto text-sm underline underline-offset-4">
          {t("analytics.open")}
        </Link>
      </div>
      {!q.data ? (
        <p className="mt-2 text-sm">{q.isError ? t("admin.failed") : t("admin.loading")}</p>
      ) : (
        <>
          <p className="mt-2 text-sm">
            <span className="font-semibold">{num(q.data.views)}</span> {t("analytics.views").toLowerCase()} ·{" "}
            <span className="font-semibold">{num(q.data.visitors)}</span> {t("analytics.visitors").toLowerCase()}
          </p>
          <DayChart label={t("analytics.chartLabel", { days: 7 })} days={q.data.perDay} lang={lang} />
        </>
      )}
    </Card>
  );
}
