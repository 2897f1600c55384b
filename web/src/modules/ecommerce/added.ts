import type { AddedBy } from "@/site/variants";

/** The variant ecommerce adds to rbac's account widget (declared by ecommerce on the server):
 * deliberately not shown, since subjects are private and the public bundle has no subject to list
 * the products of. Names only: the site part registers it without loading a component. */
export const rbacAdded = ["subject-overview-ecommerce-module-product-list-default"] as const satisfies readonly AddedBy<"rbac", "ecommerce">[];
