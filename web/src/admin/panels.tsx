import type { ComponentType } from "react";
import { NotificationPanel, TemplatePreview } from "@/modules/notification/admin";

export interface RecordPanelProps {
  id: string;
  lang: string;
}

/** Panels a module adds under the generic form of a saved record: its actions on that record
 * (kept apart from `views.tsx`, which the form must not import). */
export const recordPanels: Record<string, ComponentType<RecordPanelProps>> = {
  "notification.notification": NotificationPanel,
  "notification.template": TemplatePreview,
};
