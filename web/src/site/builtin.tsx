import type { ReactElement } from "react";
import { lazyPart, type Part } from "@/lib/lazy-part";

// Each area's screens are a chunk of their own, out of the public entry (the server renders them at once).
const Account = lazyPart(() => import("@/account/built-in"));
const Commerce = lazyPart(() => import("@/commerce/built-in"));
const ChatsScreen = lazyPart(() => import("@/social/built-in"));

const AUTH = "/rbac/subject/authentication";

/**
 * Screens the site shows when no page claims their URL, so accounts work on an empty database.
 * Kept in step with `BUILT_IN` in crates/server/src/web.rs.
 */
const SCREENS: Record<string, ReactElement> = {
  [`${AUTH}/select-method`]: <Account screen="select-method" />,
  [`${AUTH}/email-and-password/registration`]: <Account screen="registration" />,
  [`${AUTH}/email-and-password/forgot-password`]: <Account screen="forgot-password" />,
  [`${AUTH}/email-and-password/reset-password`]: <Account screen="reset-password" />,
  [`${AUTH}/logout`]: <Account screen="logout" />,
  "/rbac/subjects/settings": <Account screen="settings" />,
  "/ecommerce/checkout/success": <Commerce screen="checkout-success" />,
  "/ecommerce/checkout/cancel": <Commerce screen="checkout-cancel" />,
  "/ecommerce/orders": <Commerce screen="orders" />,
  // Not yet in the server's BUILT_IN: a direct load answers 404 before this renders.
  "/social/chats": <ChatsScreen />,
};

export function builtInScreen(url: string): ReactElement | undefined {
  return SCREENS[url];
}

/** Fetches the chunk of `url`'s built-in screen, when it has one (`site/preload.ts`). */
export function preloadBuiltIn(url: string): Promise<void> {
  const part = SCREENS[url]?.type as Partial<Part<object>> | undefined;
  return part?.preload?.() ?? Promise.resolve();
}
