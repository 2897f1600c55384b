// The page a confirmation mail links to (`/rbac/subject/verify-email?identity=…&code=…`). It never
// confirms on load — mail scanners open links — but shows the code and a button; a visitor who is
// not signed in is sent to sign in and brought back here.
import { useState } from "react";
import { Link, useLocation, useParams, useSearchParams } from "react-router";
import { signInHref, useLink } from "@/site/link";
import { buttonVariants } from "@/ui/button";
import { AuthCard } from "./auth-card";
import { useEmailT } from "./email-i18n";
import { AuthGate, GateSkeleton } from "@/site/gate";
import type { Subject } from "@/lib/session";
import { codeAddress, VerificationStep } from "./verification";

const SETTINGS = "/rbac/subjects/settings";

function SignInToConfirm() {
  const t = useEmailT();
  const { lang = "ru" } = useParams();
  const { pathname, search } = useLocation();
  return (
    <div className="grid gap-4" data-testid="verify-sign-in">
      <p className="text-sm">{t("email.page.signIn")}</p>
      <Link to={signInHref(lang, pathname + search)} className={buttonVariants()}>
        {t("email.page.login")}
      </Link>
    </div>
  );
}

function ConfirmFromLink({ subject, identity, code }: { subject: Subject; identity: string; code: string }) {
  const t = useEmailT();
  const link = useLink();
  const [done, setDone] = useState(false);
  const own = subject.identities.find((i) => i.id === identity);
  const settings = (
    <Link to={link(SETTINGS)} className="underline underline-offset-4">
      {t("email.page.settings")}
    </Link>
  );
  if (done) {
    return (
      <output className="block text-sm" data-testid="verify-done">
        {t("email.page.done")} {settings}
      </output>
    );
  }
  if (!own) {
    return (
      <p role="alert" className="text-sm text-destructive">
        {t("email.page.otherAccount")}
      </p>
    );
  }
  if (own.verifiedAt !== null && !own.pendingEmail) {
    return (
      <p className="text-sm">
        {t("errors.alreadyConfirmed")} {settings}
      </p>
    );
  }
  return <VerificationStep subject={subject.id} identity={own.id} email={codeAddress(own)} code={code} submitLabel={t("email.page.submit")} onVerified={() => setDone(true)} />;
}

/** `/rbac/subject/verify-email`: the mailed code, confirmed by the signed-in owner of the address. */
export function VerifyEmailScreen() {
  const t = useEmailT();
  const [params] = useSearchParams();
  const identity = params.get("identity") ?? "";
  const code = params.get("code") ?? "";
  return (
    <AuthCard title={t("email.page.title")}>
      {!identity || !code ? (
        <p role="alert" className="text-sm text-destructive">
          {t("email.page.noCode")}
        </p>
      ) : (
        <AuthGate guests={false} skeleton={<GateSkeleton className="px-0 py-0" />} fallback={<SignInToConfirm />}>
          {(s) => <ConfirmFromLink subject={s} identity={identity} code={code} />}
        </AuthGate>
      )}
    </AuthCard>
  );
}
