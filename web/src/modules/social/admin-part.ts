import type { AdminPart } from "@/admin/registry";
import { AiProfilePanel } from "./ai-admin";

/** Social in the admin: an AI profile's state under its form. */
export const adminPart: AdminPart = { panels: { "social.profile": AiProfilePanel } };
