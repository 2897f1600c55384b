import type { Registry } from "@/lib/registry";
import { variants as blog } from "./blog/variants";
import { variants as crm } from "./crm/variants";
import { variants as ecommerce } from "./ecommerce/variants";
import { variants as fileStorage } from "./file-storage/variants";
import { variants as rbac } from "./rbac/variants";
import { variants as social } from "./social/variants";
import { variants as websiteBuilder } from "./website-builder/variants";

/** The variant registry of the public site: `module → variant → component`. */
export const registry: Registry = {
  "website-builder": websiteBuilder,
  blog,
  ecommerce,
  crm,
  rbac,
  social,
  "file-storage": fileStorage,
};
