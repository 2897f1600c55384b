// The admin's analytics dashboard: what `GET /api/analytic/dashboard?days=` answers, and the
// arithmetic of its chart and funnel (kept apart from the components, and tested).

import type { components } from "@/api/schema";

export const DASHBOARD = "/api/analytic/dashboard";
/** The periods the admin can pick, in days. */
export const RANGES = [7, 30, 90] as const;
export type Range = (typeof RANGES)[number];

/** What the dashboard answers, as the document declares it (AnalyticDashboard). */
export type Dashboard = components["schemas"]["AnalyticDashboard"];
export type DayFigures = Dashboard["perDay"][number];
export type Top = Dashboard["topPages"][number];
export type Funnel = Dashboard["funnel"];

/** The smallest 1, 2 or 5 × 10ⁿ at or above `n` (at least 1): a round top for a chart's scale. */
export function niceMax(n: number): number {
  if (!(n > 1)) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

export interface ChartGeometry {
  /** The value at the top of the chart. */
  max: number;
  /** One bar per day (views), in viewBox units. */
  bars: { day: string; x: number; y: number; width: number; height: number }[];
  /** The visitors' line: `x,y` points at the middle of each day. */
  line: string;
  points: { day: string; x: number; y: number }[];
}

/** Bars of views and a line of visitors per day in a `width` × `height` box (y grows down). */
export function chartGeometry(days: DayFigures[], width: number, height: number): ChartGeometry {
  const max = niceMax(Math.max(0, ...days.map((d) => Math.max(d.views, d.visitors))));
  const slot = days.length ? width / days.length : width;
  const gap = Math.min(2, slot * 0.2);
  const y = (v: number) => height - (v / max) * height;
  const bars = days.map((d, i) => {
    // A day with any view keeps a visible sliver.
    const h = d.views > 0 ? Math.max(1, (d.views / max) * height) : 0;
    return { day: d.day, x: i * slot + gap / 2, y: height - h, width: Math.max(0, slot - gap), height: h };
  });
  const points = days.map((d, i) => ({ day: d.day, x: i * slot + slot / 2, y: y(d.visitors) }));
  return { max, bars, points, line: points.map((p) => `${round(p.x)},${round(p.y)}`).join(" ") };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

export interface FunnelStep {
  key: keyof Funnel;
  value: number;
  /** Share of the previous step (null for the first step, or when the previous one is 0). */
  ofPrevious: number | null;
  /** Share of the first step, for the bar's length (0 when there were no views). */
  ofFirst: number;
}

/** Views → donations started → orders paid, each with its conversion from the step before. */
export function funnelSteps(f: Funnel): FunnelStep[] {
  const order: (keyof Funnel)[] = ["views", "started", "paid"];
  const first = Math.max(0, f.views);
  return order.map((key, i) => {
    const value = Math.max(0, f[key]);
    const prev = i === 0 ? null : Math.max(0, f[order[i - 1]!]);
    return { key, value, ofPrevious: prev ? value / prev : null, ofFirst: first ? Math.min(1, value / first) : 0 };
  });
}

/** Paid orders per view (null without views). */
export function overallConversion(f: Funnel): number | null {
  return f.views > 0 ? f.paid / f.views : null;
}

/** A share as a percentage in the reader's language ("—" for none). */
export function percent(share: number | null, lang: string): string {
  if (share === null || !Number.isFinite(share)) return "—";
  return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: share < 0.1 ? 2 : 1 }).format(share);
}
