import { type ComponentType, lazy, Suspense } from "react";
import i18n, { type TFunction } from "@/i18n";
import { InboxView } from "@/modules/billing/admin";
import { OrdersView, SalesCard } from "@/modules/ecommerce/admin";
import { MediaLibrary } from "@/modules/file-storage/admin";
import { NotificationsView } from "@/modules/notification/admin";
import { RequestsInbox } from "@/modules/crm/admin";
import { AccountsView } from "./accounts";
import { AttentionCard } from "./attention";
import { toolsT } from "./i18n";
import { trustT } from "./trust-i18n";

export interface ViewProps {
  lang: string;
}

/** Screens a module gives an entity instead of the generic table (the table stays one click away). */
export const entityViews: Record<string, ComponentType<ViewProps>> = {
  "ecommerce.order": OrdersView,
  "billing.webhook": InboxView,
  "file-storage.file": MediaLibrary,
  "notification.notification": NotificationsView,
  "crm.request": RequestsInbox,
  "rbac.subject": AccountsView,
};

// The analytics screen and its card are loaded when first shown.
const AnalyticsScreen = lazy(() => import("@/modules/analytic/admin"));
const PermissionsScreen = lazy(() => import("./permissions"));
const AuditScreen = lazy(() => import("./audit"));
const LazyVisitsCard = lazy(() => import("@/modules/analytic/admin").then((m) => ({ default: m.VisitsCard })));

function VisitsCard(props: ViewProps) {
  return (
    <Suspense fallback={null}>
      <LazyVisitsCard {...props} />
    </Suspense>
  );
}

/** Screens of the admin that are not an entity's, linked above the models (`/admin/<path>`). */
export const adminScreens: { path: string; title: (t: TFunction) => string; Screen: ComponentType<ViewProps> }[] = [
  { path: "analytics", title: (t) => t("analytics.title"), Screen: AnalyticsScreen },
  { path: "permissions", title: () => toolsT()("perm.title"), Screen: PermissionsScreen },
  { path: "audit", title: () => trustT(i18n.language)("trust.audit.title"), Screen: AuditScreen },
];

/** Cards of the admin's start page. */
export const dashboardCards: { key: string; Card: ComponentType<ViewProps> }[] = [
  { key: "admin.attention", Card: AttentionCard },
  { key: "analytic.visits", Card: VisitsCard },
  { key: "ecommerce.sales", Card: SalesCard },
];
