import { variantsPart } from "@/site/registry";
import { rbacVariants, variants } from "./variants";

/** This module's variants in a chunk of their own, loaded by the pages that show them (`modules/index.ts`). */
export default variantsPart({ ...variants, ...rbacVariants });
