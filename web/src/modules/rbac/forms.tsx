import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { type TFunction, useTranslation } from "@/i18n";
import { Link, useNavigate, useSearchParams } from "react-router";
import { z } from "zod";
import { trackEvent } from "@/lib/analytics";
import { AUTH_PATH, useLink } from "@/site/link";
import { applyServerErrors } from "@/lib/form-errors";
import { Button } from "@/ui/button";
import { Input, Label } from "@/ui/input";
import { AuthCard, FieldError } from "./auth-card";
import { SecondFactorStep } from "./second-factor";
import { forgotPassword, meKey, register, resetPassword, safeRedirect, secondFactorChallenge, signIn, sessionChanged } from "./session";

/** The shortest password the server takes (crates/modules/rbac/src/password.rs). */
const MIN_PASSWORD = 8;
const email = (t: TFunction) => z.string().trim().email(t("errors.email"));
export const newPassword = (t: TFunction) => z.string().min(MIN_PASSWORD, t("errors.minLength", { count: MIN_PASSWORD }));
const credentials = (t: TFunction) => z.object({ email: email(t), password: newPassword(t) });
type CredentialsForm = z.infer<ReturnType<typeof credentials>>;

export { AUTH_PATH, useLink };

function TextField({
  id,
  label,
  error,
  ...props
}: { id: string; label: string; error?: string } & React.ComponentProps<typeof Input>) {
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...props} />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

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
      <Button type="submit" disabled={isSubmitting} className="w-full">
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

export function RegistrationScreen() {
  const { t } = useTranslation();
  const link = useLink();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const form = useForm<CredentialsForm>({ resolver: zodResolver(credentials(t)), defaultValues: { email: "", password: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await register(values);
      trackEvent("sign-up");
      await sessionChanged(qc);
      void navigate("/");
    } catch (e) {
      applyServerErrors(e, form.setError, ["email", "password"], t);
    }
  });
  return (
    <AuthCard title={t("registration.title")} subtitle={t("registration.subtitle")}>
      <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("registration.title")}>
        <TextField id="reg-email" label={t("login.email")} type="email" autoComplete="email" error={errors.email?.message} {...form.register("email")} />
        <TextField id="reg-password" label={t("login.password")} type="password" autoComplete="new-password" error={errors.password?.message} {...form.register("password")} />
        <FieldError id="reg-error" message={errors.root?.server?.message} />
        <Button type="submit" disabled={isSubmitting} className="w-full">
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
  const { t } = useTranslation();
  const [sent, setSent] = useState(false);
  const schema = z.object({ email: email(t) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await forgotPassword(values.email);
      setSent(true);
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
          <Button type="submit" disabled={isSubmitting} className="w-full">
            {t("forgot.submit")}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}

export function ResetPasswordScreen() {
  const { t } = useTranslation();
  const link = useLink();
  const [params] = useSearchParams();
  const code = params.get("code") ?? "";
  const [done, setDone] = useState(false);
  const schema = z.object({ password: newPassword(t), passwordConfirmation: newPassword(t) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { password: "", passwordConfirmation: "" } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await resetPassword({ code, ...values });
      setDone(true);
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
        <output className="block text-sm">
          {t("reset.done")}{" "}
          <Link to={link(`${AUTH_PATH}/select-method`)} className="underline underline-offset-4">
            {t("login.submit")}
          </Link>
        </output>
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
          <Button type="submit" disabled={isSubmitting} className="w-full">
            {t("reset.submit")}
          </Button>
        </form>
      )}
    </AuthCard>
  );
}

export { meKey };
