import type { AdminPart } from "@/admin/registry";
import { ApiKeyPanel } from "./api-key-admin";

/** Accounts in the admin: an API key's token panel. */
export const adminPart: AdminPart = { panels: { "rbac.api-key": ApiKeyPanel } };
