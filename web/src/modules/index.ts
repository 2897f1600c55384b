import { lazyPart } from "@/lib/lazy-part";
import type { Registry } from "@/site/registry";

/**
 * The variant registry of the public site: `module → variant → component`. Each module's
 * variants are a chunk of their own (out of the public entry), loaded by the pages that show
 * them; the server renders them at once (`lazyPart`).
 */
export const registry: Registry = {
  "website-builder": lazyPart(() => import("./website-builder/part")),
  blog: lazyPart(() => import("./blog/part")),
  ecommerce: lazyPart(() => import("./ecommerce/part")),
  crm: lazyPart(() => import("./crm/part")),
  rbac: lazyPart(() => import("./rbac/part")),
  social: lazyPart(() => import("./social/part")),
  "file-storage": lazyPart(() => import("./file-storage/part")),
  billing: lazyPart(() => import("./billing/part")),
  notification: lazyPart(() => import("./notification/part")),
  analytic: lazyPart(() => import("./analytic/part")),
  startup: lazyPart(() => import("./startup/part")),
};
