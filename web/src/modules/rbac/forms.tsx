import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { type TFunction, useTranslation } from "@/i18n";
import { Link, useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { trackEvent } from "@/lib/analytics";
import { AUTH_PATH, useLink } from "@/site/link";
import { applyServerErrors } from "@/lib/form-errors";
import { Button } from "@/ui/button";
import { Input, Label } from "@/ui/input";
import { AuthCard, FieldError, TextField } from "./auth-card";
import { useEmailT } from "./email-i18n";
import { AuthGate, GateSkeleton } from "@/site/gate";
import { type CredentialsForm, credentials, emailField, newPassword } from "./schemas";
import { SecondFactorStep } from "./second-factor";
import { isEmailIdentity, meKey, sessionChanged } from "@/lib/session";
import { forgotPassword, register, type ResetOutcome, resetPassword, safeRedirect, secondFactorChallenge, signIn } from "./auth";
import { codeAddress, VerificationStep } from "./verification";
import { oidcName } from "./methods";

export { AUTH_PATH, newPassword, useLink };

/** The password sign-in form; `onCodeStep` hears when it turns into the second-factor step and back. */
export function LoginForm({ onDone, onCodeStep }: { onDone?: () => void; onCodeStep?: (codeStep: boolean) => void }) {
  const { t } = useTranslation();
  const link = useLink();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const form = useForm<CredentialsForm>({ resolver: zodResolver(credentials(t)), defaultValues: { email: "", password: "" } });
  const { errors, isSubmitting } = form.formState;
  // An account with two-factor sign-in answers the password with a challenge: the code step.
  const [challenge, setChallenge] = useState<string | null>(null);
  async function signedIn() {
    await sessionChanged(qc);
    onDone?.();
    void navigate(safeRedirect(params.get("redirect"), "/"));
  }
  const submit = form.handleSubmit(async (values) => {
    try {
      const answer = await signIn(values);
      const asked = secondFactorChallenge(answer);
      if (asked) {
        setChallenge(asked);
        onCodeStep?.(true);
        return;
      }
      await signedIn();
    } catch (e) {
      applyServerErrors(e, form.setError, ["email", "password"], t);
    }
  });
  if (challenge) {
    return (
      <SecondFactorStep
        challenge={challenge}
        onSignedIn={signedIn}
        onRestart={(message) => {
          setChallenge(null);
          onCodeStep?.(false);
          form.resetField("password");
          if (message) form.setError("root.server", { type: "server", message });
        }}
      />
    );
  }
  return (
    <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("login.title")}>
      <TextField id="login-email" label={t("login.email")} type="email" autoComplete="email" error={errors.email?.message} {...form.register("email")} />
      <div className="grid gap-1.5">
        <div className="flex items-center justify-between">
          <Label htmlFor="login-password">{t("login.password")}</Label>
          <Link to={link(`${AUTH_PATH}/email-and-password/forgot-password`)} className="text-sm underline-offset-4 hover:underline">
            {t("login.forgot")}
          </Link>
        </div>
        <Input id="login-password" type="password" autoComplete="current-password" {...form.register("password")} />
        <FieldError id="login-password-error" message={errors.password?.message} />
      </div>
      <FieldError id="login-error" message={errors.root?.server?.message} />
      <Button type="submit" variant="brand" disabled={isSubmitting} className="w-full">
        {t("login.submit")}
      </Button>
      <p className="text-center text-sm">
        {t("login.noAccount")}{" "}
        <Link to={link(`${AUTH_PATH}/email-and-password/registration`)} className="underline underline-offset-4">
          {t("login.signUp")}
        </Link>
      </p>
    </form>
  );
}

/** After registration: the code mailed to the new address, or 'Later' on to where the visitor was going. */
function RegisteredStep({ next }: { next: string }) {
  const t = useEmailT();
  const navigate = useNavigate();
  const later = (
    <Link to={next} className="justify-self-center text-sm underline underline-offset-4">
      {t("email.verify.later")}
    </Link>
  );
  return (
    <AuthGate skeleton={<GateSkeleton className="px-0 py-0" />} fallback={later}>
      {(s) => {
        const identity = s.identities.find(isEmailIdentity);
        return (
          <div className="grid gap-6">
            {identity ? <VerificationStep subject={s.id} identity={identity.id} email={codeAddress(identity)} onVerified={() => void navigate(next)} /> : null}
            {later}
          </div>
        );
      }}
    </AuthGate>
  );
}

export function RegistrationScreen() {
  const t = useEmailT();
  const link = useLink();
  const qc = useQueryClient();
  const [params] = useSearchParams();
  // Signed up: the card turns into the code step (a code is on its way to the address).
  const [registered, setRegistered] = useState(false);
  const form = useForm<CredentialsForm>({ resolver: zodResolver(credentials(t)), defaultValues: { email: "", password: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await register(values);
      trackEvent("sign-up");
      await sessionChanged(qc);
      setRegistered(true);
    } catch (e) {
      applyServerErrors(e, form.setError, ["email", "password"], t);
    }
  });
  if (registered) {
    return (
      <AuthCard title={t("email.verify.title")}>
        <RegisteredStep next={safeRedirect(params.get("redirect"), "/")} />
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t("registration.title")} subtitle={t("registration.subtitle")}>
      <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("registration.title")}>
        <TextField id="reg-email" label={t("login.email")} type="email" autoComplete="email" error={errors.email?.message} {...form.register("email")} />
        <TextField id="reg-password" label={t("login.password")} type="password" autoComplete="new-password" error={errors.password?.message} {...form.register("password")} />
        <FieldError id="reg-error" message={errors.root?.server?.message} />
        <Button type="submit" variant="brand" disabled={isSubmitting} className="w-full">
          {t("registration.submit")}
        </Button>
        <p className="text-center text-sm">
          {t("registration.haveAccount")}{" "}
          <Link to={link(`${AUTH_PATH}/select-method`)} className="underline underline-offset-4">
            {t("registration.signIn")}
          </Link>
        </p>
      </form>
    </AuthCard>
  );
}

export function ForgotPasswordScreen() {
  const t = useEmailT();
  const [sent, setSent] = useState(false);
  const schema = z.object({ email: emailField(t) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await forgotPassword(values.email);
      setSent(true);
      toast.success(t("email.forgot.sent"));
    } catch (e) {
      applyServerErrors(e, form.setError, ["email"], t);
    }
  });
  return (
    <AuthCard title={t("forgot.title")} subtitle={t("forgot.subtitle")}>
      {sent ? (
        <output className="block text-sm">
          {t("forgot.sent")}
        </output>
      ) : (
        <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("forgot.title")}>
          <TextField id="forgot-email" label={t("login.email")} type="email" autoComplete="email" error={errors.email?.message} {...form.register("email")} />
          <FieldError id="forgot-error" message={errors.root?.server?.message} />
          <Button type="submit" variant="brand" disabled={isSubmitting} className="w-full">
            {t("forgot.submit")}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}

/** What the reset removed from an account whose address was never confirmed (someone else may
 * have added it): the sign-in methods, and two-factor sign-in. Nothing when it removed nothing. */
export function ResetRemoved({ outcome }: { outcome: ResetOutcome }) {
  const t = useEmailT();
  const removed = outcome.removedIdentities;
  if (removed.length === 0 && !outcome.secondFactorRemoved) return null;
  return (
    <div className="mt-4 grid gap-2 rounded-md border border-amber-700 bg-amber-50 p-3 text-sm text-amber-950" data-testid="reset-removed">
      {removed.length ? (
        <>
          <p>{t("email.reset.removed")}</p>
          <ul className="list-disc pl-5">
            {removed.map((r, n) => (
              <li key={`${r.provider}-${r.email ?? r.account ?? n}`}>
                <span className="font-medium">{providerLabel(r.provider, t)}</span> <span className="break-all">{r.email ?? r.account}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {outcome.secondFactorRemoved ? <p>{t("email.reset.secondFactorRemoved")}</p> : null}
    </div>
  );
}

/** A sign-in method's name, in the page's language. */
function providerLabel(provider: string | null, t: TFunction): string {
  if (provider === "ethereum_virtual_machine") return t("email.reset.provider.evm");
  if (provider === "telegram") return t("email.reset.provider.telegram");
  if (provider === "oidc") return t("email.reset.provider.oidc", { name: oidcName() ?? "OpenID Connect" });
  return t("email.reset.provider.email");
}

export function ResetPasswordScreen() {
  const t = useEmailT();
  const link = useLink();
  const [params] = useSearchParams();
  const code = params.get("code") ?? "";
  const [done, setDone] = useState<ResetOutcome | null>(null);
  const schema = z.object({ password: newPassword(t), passwordConfirmation: newPassword(t) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { password: "", passwordConfirmation: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      setDone(await resetPassword({ code, ...values }));
      toast.success(t("email.reset.done"));
    } catch (e) {
      applyServerErrors(e, form.setError, ["password", "passwordConfirmation"], t);
    }
  });
  return (
    <AuthCard title={t("reset.title")} subtitle={t("reset.subtitle")}>
      {!code ? (
        <p role="alert" className="text-sm text-destructive">
          {t("reset.noCode")}
        </p>
      ) : done ? (
        <>
          <output className="block text-sm">
            {t("reset.done")}{" "}
            <Link to={link(`${AUTH_PATH}/select-method`)} className="underline underline-offset-4">
              {t("login.submit")}
            </Link>
          </output>
          <ResetRemoved outcome={done} />
        </>
      ) : (
        <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("reset.title")}>
          <TextField id="reset-password" label={t("reset.password")} type="password" autoComplete="new-password" error={errors.password?.message} {...form.register("password")} />
          <TextField
            id="reset-confirmation"
            label={t("reset.confirmation")}
            type="password"
            autoComplete="new-password"
            error={errors.passwordConfirmation?.message}
            {...form.register("passwordConfirmation")}
          />
          <FieldError id="reset-error" message={errors.root?.server?.message} />
          <Button type="submit" variant="brand" disabled={isSubmitting} className="w-full">
            {t("reset.submit")}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}

export { meKey };
