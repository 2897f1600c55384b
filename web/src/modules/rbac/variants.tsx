import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "./screens";
import type { VariantKey, VariantsOf } from "@/site/variants";
import { SubjectProfileOverview, SubjectProfiles } from "@/modules/social/profiles";
import { SubjectList, SubjectOverview } from "./members";

/** Declared by the server, deliberately not rendered by the public site. */
export const notRendered = [
  // The bare widget: the bundle gives it no `_list` or `_record` (those follow the variant's name).
  "default",
  // A subject's products: subjects are private, so the public bundle has no subject to list them of.
  "subject-overview-ecommerce-module-product-list-default",
] as const satisfies readonly VariantKey<"rbac">[];

/** Every declared variant of rbac widgets but `notRendered`. */
export const variants = {
  "subject-authentication-select-method-default": SelectMethodScreen,
  "subject-authentication-email-and-password-registration-form-default": RegistrationScreen,
  "subject-authentication-email-and-password-forgot-password-form-default": ForgotPasswordScreen,
  "subject-authentication-email-and-password-reset-password-form-default": ResetPasswordScreen,
  "subject-authentication-logout-action-default": LogoutScreen,
  "subject-identity-settings-default": SettingsScreen,
  "subject-overview-default": SubjectOverview,
  "subject-list-default": SubjectList,
  "subject-list-social-module-profile-default": SubjectProfiles,
  "subject-overview-social-module-profile-overview-default": SubjectProfileOverview,
} satisfies VariantsOf<"rbac", never, (typeof notRendered)[number]>;
