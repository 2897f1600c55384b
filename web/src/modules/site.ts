import type { SitePart } from "@/site/slots";
import { sitePart as ecommerce } from "./ecommerce/site-part";
import { sitePart as rbac } from "./rbac/site-part";
import { sitePart as social } from "./social/site-part";

/** What each module adds to the public site: the app registers these (`app.tsx`) before it
 * renders; the site imports no module itself. */
export const siteParts: SitePart[] = [ecommerce, rbac, social];
