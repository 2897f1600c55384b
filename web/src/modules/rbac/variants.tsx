import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "./screens";
import type { AddedBy, VariantKey, VariantsOf } from "@/site/variants";
import { SubjectList, SubjectOverview } from "./members";

/** Declared by the server, deliberately not rendered by the public site. */
export const notRendered = [
  // The bare widget: the bundle gives it no `_list` or `_record` (those follow the variant's name).
  "default",
] as const satisfies readonly VariantKey<"rbac">[];

/** Every declared variant of rbac widgets but `notRendered` and those higher modules add (social's
 * profiles, ecommerce's products: theirs to render). */
export const variants = {
  "subject-authentication-select-method-default": SelectMethodScreen,
  "subject-authentication-email-and-password-registration-form-default": RegistrationScreen,
  "subject-authentication-email-and-password-forgot-password-form-default": ForgotPasswordScreen,
  "subject-authentication-email-and-password-reset-password-form-default": ResetPasswordScreen,
  "subject-authentication-logout-action-default": LogoutScreen,
  "subject-identity-settings-default": SettingsScreen,
  "subject-overview-default": SubjectOverview,
  "subject-list-default": SubjectList,
} satisfies VariantsOf<"rbac", never, (typeof notRendered)[number], AddedBy<"rbac", "social" | "ecommerce">>;
