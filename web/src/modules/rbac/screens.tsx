import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "@/i18n";
import { Link, useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { applyServerErrors, errorMessage } from "@/lib/form-errors";
import { useFormStatus } from "@/lib/form-status";
import { Button, buttonVariants } from "@/ui/button";
import { Badge } from "@/ui/card";
import { Dialog, DialogContent, DialogTrigger } from "@/ui/dialog";
import { Input, Label } from "@/ui/input";
import { boot } from "@/lib/boot";
import { AuthCard, FieldError } from "./auth-card";
import { AUTH_PATH, LoginForm, newPassword, useLink } from "./forms";
import { TELEGRAM, TelegramLink } from "./telegram";
import { ClientOnly } from "@/lib/client-only";
import { SecondFactorStep } from "./second-factor";
import { SecuritySection } from "./security";
import { useEmailT } from "./email-i18n";
import { AuthGate } from "@/site/gate";
import { oidcName, oidcStartUrl, useWalletOffered } from "./methods";
import { type Identity, isEmailIdentity, meKey, sessionChanged, type Subject, useLogout } from "@/lib/session";
import { changePassword, deleteIdentity, safeRedirect, unconfirmedEmail } from "./auth";
import { AddEmailSection, ChangeEmailDialog, VerifyDialog } from "./verification";

const WalletButton = lazy(() => import("./wallet"));

export function Wallet({ onSignedIn, onChallenge, label }: { onSignedIn?: () => void; onChallenge?: (challenge: string) => void; label?: string }) {
  const waiting = (
    <Button variant="brand-outline" className="w-full" disabled>
      …
    </Button>
  );
  return (
    <ClientOnly fallback={waiting}>
      <Suspense fallback={waiting}>
        <WalletButton onSignedIn={onSignedIn} onChallenge={onChallenge} label={label} />
      </Suspense>
    </ClientOnly>
  );
}

/** The login and password form, and — where the site offers it (`walletOffered`) — 'Sign in
 * with an Ethereum wallet' under 'or'. */
export function SelectMethodScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const qc = useQueryClient();
  const wallet = useWalletOffered();
  const et = useEmailT();
  const { i18n } = useTranslation();
  const provider = oidcName();
  // Why a sign-in with the provider came back refused (`oidcError`, set by the server).
  const oidcError = params.get("oidcError");
  // A wallet account with two-factor sign-in: its code step in place of the methods (a
  // provider's sign-in comes back with its challenge in the address).
  const [challenge, setChallenge] = useState<string | null>(() => params.get("challenge"));
  // The password's code step: the other methods step aside until it is done or abandoned.
  const [codeStep, setCodeStep] = useState(false);
  if (challenge) {
    return (
      <AuthCard title={t("login.title")}>
        <SecondFactorStep
          challenge={challenge}
          onSignedIn={async () => {
            await sessionChanged(qc);
            void navigate(safeRedirect(params.get("redirect"), "/"));
          }}
          onRestart={(message) => {
            setChallenge(null);
            if (message) toast.error(message);
          }}
        />
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t("login.title")} subtitle={codeStep ? undefined : t("login.subtitle")}>
      {oidcError ? (
        <p role="alert" className="mb-4 rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive" data-testid="oidc-error">
          {et(`email.oidc.error.${oidcError}`, { name: provider ?? "", defaultValue: et("email.oidc.error.provider", { name: provider ?? "" }) })}
        </p>
      ) : null}
      <LoginForm onCodeStep={setCodeStep} />
      {provider && !codeStep ? (
        <>
          <div className="my-6 flex items-center gap-3 text-xs uppercase text-muted-foreground">
            <span className="h-px flex-1 bg-border" />
            {t("login.or")}
            <span className="h-px flex-1 bg-border" />
          </div>
          {/* A navigation, not a call: the provider's page takes over the browser. */}
          <a className={buttonVariants({ variant: "brand-outline", className: "w-full" })} href={oidcStartUrl(safeRedirect(params.get("redirect"), `/${i18n.language}/`), i18n.language)} data-testid="oidc-sign-in">
            {et("email.oidc.signIn", { name: provider })}
          </a>
        </>
      ) : null}
      {wallet && !codeStep ? (
        <>
          {provider ? (
            <div className="h-3" />
          ) : (
            <div className="my-6 flex items-center gap-3 text-xs uppercase text-muted-foreground">
              <span className="h-px flex-1 bg-border" />
              {t("login.or")}
              <span className="h-px flex-1 bg-border" />
            </div>
          )}
          <Wallet label={t("wallet.signIn")} onSignedIn={() => void navigate(safeRedirect(params.get("redirect"), "/"))} onChallenge={setChallenge} />
        </>
      ) : null}
    </AuthCard>
  );
}

/** Logs out at once and goes to '/'. */
export function LogoutScreen() {
  const logout = useLogout();
  const navigate = useNavigate();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    logout.mutate(undefined, { onSettled: () => void navigate("/", { replace: true }) });
  }, [logout, navigate]);
  return null;
}

function ChangePasswordDialog({ subject, identity }: { subject: Subject; identity: Identity }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const { status, run } = useFormStatus();
  const schema = z.object({ password: newPassword(t), newPassword: newPassword(t) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { password: "", newPassword: "" } });
  const { errors } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      await run(() => changePassword(subject.id, identity.id, values));
      toast.success(t("account.updated"));
      form.reset();
      setOpen(false);
    } catch (e) {
      applyServerErrors(e, form.setError, ["password", "newPassword"], t);
    }
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          {t("account.changePassword")}
        </Button>
      </DialogTrigger>
      <DialogContent title={t("account.changePassword")} description={t("account.changePasswordDescription")} className="max-w-md">
        <form onSubmit={submit} className="grid gap-4" noValidate>
          <div className="grid gap-1.5">
            <Label htmlFor="cp-current">{t("account.currentPassword")}</Label>
            <Input id="cp-current" type="password" autoComplete="current-password" {...form.register("password")} />
            <FieldError id="cp-current-error" message={errors.password?.message} />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor="cp-new">{t("account.newPassword")}</Label>
            <Input id="cp-new" type="password" autoComplete="new-password" {...form.register("newPassword")} />
            <FieldError id="cp-new-error" message={errors.newPassword?.message} />
          </div>
          <FieldError id="cp-error" message={errors.root?.server?.message} />
          <Button type="submit" disabled={status === "pending"}>
            {status === "pending" ? t("account.updating") : t("account.update")}
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** The settings' answer to a visitor who is not signed in. */
function NotSignedIn() {
  const { t } = useTranslation();
  const link = useLink();
  return (
    <AuthCard title={t("account.settings")}>
      <p className="text-sm">
        {t("account.notSignedIn")}{" "}
        <Link className="underline" to={link(`${AUTH_PATH}/select-method`)}>
          {t("account.login")}
        </Link>
      </p>
    </AuthCard>
  );
}

/** The identities of the signed-in subject, each with its badge and actions. */
export function SettingsScreen() {
  return (
    <AuthGate guests={false} fallback={<NotSignedIn />}>
      {(s) => <Settings subject={s} />}
    </AuthGate>
  );
}

/** One sign-in method: its kind and address, whether the address is confirmed, its actions. The
 * address keeps to one line (cut with an ellipsis, whole in its tooltip), never a letter a line. */
function IdentityRow({ subject, identity: i, onDelete }: { subject: Subject; identity: Identity; onDelete: () => void }) {
  const t = useEmailT();
  const kind = identityKind(i);
  const email = isEmailIdentity(i);
  const unconfirmed = email && i.verifiedAt === null;
  const address = (kind === "email" ? i.email : i.account) ?? "";
  return (
    <li className="grid gap-3 rounded-lg border border-border p-4" data-testid="identity" data-provider={i.provider} data-confirmed={email ? !unconfirmed : undefined}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Badge className="shrink-0">{kind === "wallet" ? t("login.methodEvm") : kind === "telegram" ? "Telegram" : kind === "oidc" ? (oidcName() ?? "OpenID Connect") : t("login.email")}</Badge>
        <span className="min-w-0 max-w-full truncate text-sm font-medium" title={address} data-testid="identity-address">
          {address}
        </span>
        {unconfirmed ? (
          <Badge className="shrink-0 border-amber-700 bg-amber-50 text-amber-950" data-testid="identity-unconfirmed">
            {t("email.badge.unconfirmed")}
          </Badge>
        ) : null}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {unconfirmed && !i.pendingEmail ? <VerifyDialog subject={subject} identity={i} label={t("email.confirm")} /> : null}
        {email ? <ChangeEmailDialog subject={subject} identity={i} /> : null}
        {kind === "email" ? <ChangePasswordDialog subject={subject} identity={i} /> : null}
        <Button variant="destructive" size="sm" onClick={onDelete}>
          {t("account.delete")}
        </Button>
      </div>
      {i.pendingEmail ? (
        <div className="flex flex-wrap items-center gap-3 rounded-md bg-muted px-3 py-2 text-sm" data-testid="identity-pending">
          <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">{t("email.pending", { email: i.pendingEmail })}</span>
          <VerifyDialog subject={subject} identity={i} label={t("email.enterCode")} />
        </div>
      ) : null}
    </li>
  );
}

function Settings({ subject: s }: { subject: Subject }) {
  const { i18n } = useTranslation();
  const t = useEmailT();
  const qc = useQueryClient();
  const [error, setError] = useState<string>();
  async function remove(i: Identity) {
    setError(undefined);
    try {
      await deleteIdentity(s.id, i.id);
      toast.success(t("account.deleted"));
      await qc.invalidateQueries({ queryKey: meKey });
    } catch (e) {
      setError(errorMessage(e, t));
    }
  }
  // An admin who must turn on two-factor sign-in sees that first (the admin sends them here).
  const enrolFirst = !!s.secondFactor?.required && !s.secondFactor.satisfied;
  // The server links no wallet nor Telegram while an email address waits for its code. (The
  // wallet button above is offered only to an account without any identity, so never then.)
  const linkBlocked = unconfirmedEmail(s) ? t("email.linkBlocked") : undefined;
  return (
    <div className="mx-auto max-w-3xl px-4 py-10">
      <h1 className="text-2xl font-semibold">{t("account.settings")}</h1>
      {enrolFirst ? <SecuritySection subject={s} /> : null}
      <h2 className="mt-6 text-lg font-medium">{t("account.identities")}</h2>
      {s.identities.length === 0 ? (
        <div className="mt-4 max-w-sm">
          <Wallet />
        </div>
      ) : null}
      <ul className="mt-4 grid gap-3">
        {s.identities.map((i) => (
          <IdentityRow key={i.id} subject={s} identity={i} onDelete={() => void remove(i)} />
        ))}
      </ul>
      {error ? (
        <p role="alert" className="mt-3 text-sm text-destructive">
          {error}
        </p>
      ) : null}
      <AddEmailSection subject={s} />
      <OidcLink subject={s} blockedHint={linkBlocked} />
      <TelegramLink bot={boot?.site.telegramBot} subject={s} lang={i18n.language} blockedHint={linkBlocked} />
      {enrolFirst ? null : <SecuritySection subject={s} />}
    </div>
  );
}

/** "Add sign-in with Google": where the site offers a provider and the account has none yet.
 * A navigation to the provider and back to this page (the server checks the recent sign-in and
 * the confirmed address a link needs). */
function OidcLink({ subject: s, blockedHint }: { subject: Subject; blockedHint?: string }) {
  const t = useEmailT();
  const { i18n } = useTranslation();
  const name = oidcName();
  if (!name || s.identities.some((i) => i.provider === "oidc")) return null;
  const here = typeof window === "undefined" ? `/${i18n.language}/` : window.location.pathname;
  return (
    <section className="mt-6 grid max-w-sm gap-2" data-testid="oidc-link">
      <p className="text-sm text-muted-foreground">{t("email.oidc.addHelp", { name })}</p>
      {blockedHint ? (
        <p className="text-sm text-muted-foreground">{blockedHint}</p>
      ) : (
        <a className={buttonVariants({ variant: "outline" })} href={oidcStartUrl(here, i18n.language, true)}>
          {t("email.oidc.add", { name })}
        </a>
      )}
    </section>
  );
}

/** The kind of an identity, for its badge. */
function identityKind(i: Identity): "wallet" | "telegram" | "oidc" | "email" {
  if (i.provider === "ethereum_virtual_machine") return "wallet";
  if (i.provider === TELEGRAM) return "telegram";
  if (i.provider === "oidc") return "oidc";
  return "email";
}
