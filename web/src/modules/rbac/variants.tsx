import { useTranslation } from "@/i18n";
import { Link } from "react-router";
import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "./screens";
import { siteLink } from "@/site/link";
import type { VariantProps } from "@/site/registry";
import type { VariantKey, VariantsOf } from "@/site/variants";
import { SubjectProfileOverview, SubjectProfiles } from "@/social/profiles";
import { Block, ListGrid } from "../shared";

function SubjectList({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  return (
    <Block data={data} lang={lang}>
      <ListGrid>
        {(data._list ?? []).map((s) => (
          <article key={s.id} className="flex items-center justify-between rounded-2xl border border-neutral-200 p-5">
            <span className="font-medium">{String(s.slug)}</span>
            <Link to={siteLink(`/rbac/subjects/${s.slug}`, lang)} className="text-emerald-800 underline-offset-4 hover:underline">
              {t("site.viewProfile")}
            </Link>
          </article>
        ))}
      </ListGrid>
    </Block>
  );
}

function SubjectOverview({ data, lang }: VariantProps) {
  const s = data._record;
  if (!s) return null;
  return (
    <Block data={data} lang={lang}>
      <h1 className="text-3xl font-bold">{String(s.slug)}</h1>
    </Block>
  );
}

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
