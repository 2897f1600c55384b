import type { AdminPart } from "@/admin/registry";
import { InboxView } from "./admin";

/** Billing in the admin: the providers' webhook inbox instead of its table. */
export const adminPart: AdminPart = { views: { "billing.webhook": InboxView } };
