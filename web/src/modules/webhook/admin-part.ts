import type { AdminPart } from "@/admin/registry";
import { DeliveryPanel, EndpointPanel } from "./admin";

/** Webhooks in the admin: an endpoint's and a delivery's actions under their forms. */
export const adminPart: AdminPart = {
  panels: { "webhook.endpoint": EndpointPanel, "webhook.delivery": DeliveryPanel },
};
