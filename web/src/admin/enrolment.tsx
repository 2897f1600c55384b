import { Link } from "react-router";
import { useTrustT } from "./trust-i18n";

/**
 * In place of the admin while the account must enrol a second factor first
 * (`STOA_ADMIN_2FA=required` and no TOTP yet): the server refuses the admin's routes until then.
 */
export function EnrolmentRequired({ lang }: { lang: string }) {
  const t = useTrustT();
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center" data-testid="enrolment-required">
      <h1 className="text-2xl font-semibold">{t("trust.enrol.title")}</h1>
      <p className="max-w-md text-sm text-neutral-700">{t("trust.enrol.body")}</p>
      <Link className="underline underline-offset-4" to={`/${lang}/rbac/subjects/settings#security`}>
        {t("trust.enrol.link")}
      </Link>
    </main>
  );
}
