import { lazy } from "react";
import i18n from "@/i18n";
import { AccountsView } from "./accounts";
import { AttentionCard } from "./attention";
import { toolsT } from "./i18n";
import { type AdminPart, registerAdmin } from "./registry";
import { trustT } from "./trust-i18n";

export type { ViewProps } from "./registry";

const PermissionsScreen = lazy(() => import("./permissions"));
const AuditScreen = lazy(() => import("./audit"));

/** The admin's own screens and cards; the modules add theirs (`registerAdmin`). */
export const builtIn: AdminPart = {
  views: { "rbac.subject": AccountsView },
  screens: [
    { path: "permissions", order: 20, title: () => toolsT()("perm.title"), Screen: PermissionsScreen },
    { path: "audit", order: 30, title: () => trustT(i18n.language)("trust.audit.title"), Screen: AuditScreen },
  ],
  cards: [{ key: "admin.attention", order: 10, Card: AttentionCard }],
};

registerAdmin(builtIn);
