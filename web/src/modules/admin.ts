import type { AdminPart } from "@/admin/registry";
import { adminPart as analytic } from "./analytic/admin-part";
import { adminPart as billing } from "./billing/admin-part";
import { adminPart as crm } from "./crm/admin-part";
import { adminPart as ecommerce } from "./ecommerce/admin-part";
import { adminPart as fileStorage } from "./file-storage/admin-part";
import { adminPart as notification } from "./notification/admin-part";
import { adminPart as rbac } from "./rbac/admin-part";
import { adminPart as social } from "./social/admin-part";
import { adminPart as webhook } from "./webhook/admin-part";

/** What each module adds to the admin: the admin registers these (`admin-entry.tsx`) and
 * iterates them; it imports no module itself. */
export const adminParts: AdminPart[] = [analytic, billing, crm, ecommerce, fileStorage, notification, rbac, social, webhook];
