import type { AdminPart } from "@/admin/registry";
import { NotificationPanel, NotificationsView, TemplatePreview } from "./admin";

/** Notifications in the admin: the outbox, a notification's actions and a template's preview. */
export const adminPart: AdminPart = {
  views: { "notification.notification": NotificationsView },
  panels: { "notification.notification": NotificationPanel, "notification.template": TemplatePreview },
};
