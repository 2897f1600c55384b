import type { AdminPart } from "@/admin/registry";
import { RequestsInbox } from "./admin";

/** CRM in the admin: the requests inbox instead of its table. */
export const adminPart: AdminPart = { views: { "crm.request": RequestsInbox } };
