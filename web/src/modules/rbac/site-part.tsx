import { lazyPart } from "@/lib/lazy-part";
import { AUTH_PATH } from "@/site/link";
import type { SitePart } from "@/site/slots";

// The account's screens are a chunk of their own, out of the public entry (the server renders them at once).
const Account = lazyPart(() => import("./built-in"));

/** The account on the public site: its built-in screens. */
export const sitePart: SitePart = {
  screens: {
    [`${AUTH_PATH}/select-method`]: <Account screen="select-method" />,
    [`${AUTH_PATH}/email-and-password/registration`]: <Account screen="registration" />,
    [`${AUTH_PATH}/email-and-password/forgot-password`]: <Account screen="forgot-password" />,
    [`${AUTH_PATH}/email-and-password/reset-password`]: <Account screen="reset-password" />,
    [`${AUTH_PATH}/logout`]: <Account screen="logout" />,
    "/rbac/subject/verify-email": <Account screen="verify-email" />,
    "/rbac/subjects/settings": <Account screen="settings" />,
  },
};
