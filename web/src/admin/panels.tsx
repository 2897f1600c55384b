import { type ComponentType, lazy, Suspense } from "react";
import { NotificationPanel, TemplatePreview } from "@/modules/notification/admin";
import { ApiKeyPanel } from "@/modules/rbac/api-key-admin";
import { AiProfilePanel } from "@/modules/social/ai-admin";
import { DeliveryPanel, EndpointPanel } from "@/modules/webhook/admin";

// The page builder (and drag and drop) loads with a page's form.
const LazyPageBuilder = lazy(() => import("./page-builder"));

function PageBuilder(props: RecordPanelProps) {
  return (
    <Suspense fallback={null}>
      <LazyPageBuilder {...props} />
    </Suspense>
  );
}

export interface RecordPanelProps {
  id: string;
  lang: string;
}

/** Panels a module adds under the generic form of a saved record: its actions on that record
 * (kept apart from `views.tsx`, which the form must not import). */
export const recordPanels: Record<string, ComponentType<RecordPanelProps>> = {
  "notification.notification": NotificationPanel,
  "notification.template": TemplatePreview,
  "host.page": PageBuilder,
  "webhook.endpoint": EndpointPanel,
  "webhook.delivery": DeliveryPanel,
  "rbac.api-key": ApiKeyPanel,
  "social.profile": AiProfilePanel,
};
