import type { AddedBy } from "@/site/variants";

/** The variants social adds to rbac's account widget (declared by social on the server), rendered
 * by social's part (`variants.tsx`). Names only: the site part registers them without loading a
 * component. */
export const rbacAdded = ["subject-list-social-module-profile-default", "subject-overview-social-module-profile-overview-default"] as const satisfies readonly AddedBy<"rbac", "social">[];
