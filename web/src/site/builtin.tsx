import type { ReactElement } from "react";
import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "@/account/forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "@/account/screens";
import { CheckoutReturnScreen, MyOrdersScreen } from "@/commerce/cart";
import { ChatsScreen } from "@/social/chat";

const AUTH = "/rbac/subject/authentication";

/**
 * Screens the site shows when no page claims their URL, so accounts work on an empty database.
 * Kept in step with `BUILT_IN` in crates/server/src/web.rs.
 */
const SCREENS: Record<string, ReactElement> = {
  [`${AUTH}/select-method`]: <SelectMethodScreen />,
  [`${AUTH}/email-and-password/registration`]: <RegistrationScreen />,
  [`${AUTH}/email-and-password/forgot-password`]: <ForgotPasswordScreen />,
  [`${AUTH}/email-and-password/reset-password`]: <ResetPasswordScreen />,
  [`${AUTH}/logout`]: <LogoutScreen />,
  "/rbac/subjects/settings": <SettingsScreen />,
  "/ecommerce/checkout/success": <CheckoutReturnScreen />,
  "/ecommerce/checkout/cancel": <CheckoutReturnScreen canceled />,
  "/ecommerce/orders": <MyOrdersScreen />,
  // Not yet in the server's BUILT_IN: a direct load answers 404 before this renders.
  "/social/chats": <ChatsScreen />,
};

export function builtInScreen(url: string): ReactElement | undefined {
  return SCREENS[url];
}
