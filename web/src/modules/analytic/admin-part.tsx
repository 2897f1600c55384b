import { lazy, Suspense } from "react";
import type { AdminPart, ViewProps } from "@/admin/registry";

// The analytics screen and its card are loaded when first shown.
const AnalyticsScreen = lazy(() => import("./admin"));
const LazyVisitsCard = lazy(() => import("./admin").then((m) => ({ default: m.VisitsCard })));

function VisitsCard(props: ViewProps) {
  return (
    <Suspense fallback={null}>
      <LazyVisitsCard {...props} />
    </Suspense>
  );
}

/** Analytics in the admin: its screen and the start page's visits card. */
export const adminPart: AdminPart = {
  screens: [{ path: "analytics", order: 10, title: (t) => t("analytics.title"), Screen: AnalyticsScreen }],
  cards: [{ key: "analytic.visits", order: 20, Card: VisitsCard }],
};
