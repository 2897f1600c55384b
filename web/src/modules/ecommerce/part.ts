import { variantsPart } from "@/site/registry";
import { notRendered, rbacNotRendered, variants } from "./variants";

/** This module's variants in a chunk of their own, loaded by the pages that show them (`modules/index.ts`). */
export default variantsPart(variants, [...notRendered, ...rbacNotRendered]);
