// Confirming an email address: the code step (the 6 digits mailed to the address), the dialog
// that opens it from the settings, changing the address (the new one is confirmed the same way)
// and adding an email to an account that has none.
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { applyServerErrors } from "@/lib/form-errors";
import { useFormStatus } from "@/lib/form-status";
import { Button } from "@/ui/button";
import { Dialog, DialogContent, DialogTrigger } from "@/ui/dialog";
import { FieldError, TextField } from "./auth-card";
import { useEmailT } from "./email-i18n";
import { type CredentialsForm, credentials, emailField } from "./schemas";
import { type Identity, isEmailIdentity, meKey, type Subject } from "@/lib/session";
import { addEmailIdentity, changeEmail, sendVerification, verifyIdentity } from "./auth";

/** The address an identity's code was mailed to: the one waiting to replace it, else its own. */
export function codeAddress(i: Identity): string {
  return i.pendingEmail ?? i.email ?? "";
}

interface StepProps {
  subject: string;
  identity: string;
  /** Where the code went (shown: 'We sent a 6-digit code to …'). */
  email: string;
  /** A code to start with (the mail's link carries it). */
  code?: string;
  /** The confirm button's words ('Confirm' when not given). */
  submitLabel?: string;
  onVerified?: (identity: Identity) => void | Promise<void>;
}

/**
 * The code step: the six digits mailed to `email`, a button that confirms them and one that mails
 * a new code. On success the signed-in subject is asked again (its identity is confirmed now).
 */
export function VerificationStep({ subject, identity, email, code = "", submitLabel, onVerified }: StepProps) {
  const t = useEmailT();
  const qc = useQueryClient();
  const id = useId();
  const { status, run } = useFormStatus();
  const [sending, setSending] = useState(false);
  const schema = z.object({ code: z.string().trim().regex(/^\d{6}$/, t("email.verify.format")) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { code } });
  const { errors } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      const done = await run(() => verifyIdentity(subject, identity, values.code));
      toast.success(t("email.verify.done"));
      await qc.invalidateQueries({ queryKey: meKey });
      if (done) await onVerified?.(done);
    } catch (e) {
      applyServerErrors(e, form.setError, ["code"], t);
    }
  });
  async function resend() {
    setSending(true);
    form.clearErrors();
    try {
      const sent = await sendVerification(subject, identity);
      toast.success(t("email.verify.resent", { email: sent.sentTo }));
    } catch (e) {
      applyServerErrors(e, form.setError, [], t);
    } finally {
      setSending(false);
    }
  }
  const codeId = `${id}-code`;
  return (
    <form onSubmit={submit} className="grid gap-4" noValidate aria-label={t("email.verify.title")} data-testid="verification-step">
      <p className="text-sm text-neutral-800">{t("email.verify.sentTo", { email })}</p>
      <TextField
        id={codeId}
        label={t("email.verify.code")}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        spellCheck={false}
        className="max-w-48 font-mono tracking-[0.3em]"
        error={errors.code?.message}
        {...form.register("code")}
      />
      {/* A field's message is shown by the field; the form's only when no field has one. */}
      <FieldError id={`${id}-error`} message={errors.code ? undefined : errors.root?.server?.message} />
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={status === "pending"}>
          {status === "pending" ? t("email.verify.pending") : (submitLabel ?? t("email.verify.submit"))}
        </Button>
        <Button variant="outline" disabled={sending} onClick={() => void resend()}>
          {t("email.verify.resend")}
        </Button>
      </div>
    </form>
  );
}

/** 'Confirm' (or 'Enter the code') in the settings: the code step for `identity` in a dialog. */
export function VerifyDialog({ subject, identity, label }: { subject: Subject; identity: Identity; label: string }) {
  const t = useEmailT();
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm">{label}</Button>
      </DialogTrigger>
      <DialogContent title={t("email.verify.title")} className="max-w-md">
        <VerificationStep subject={subject.id} identity={identity.id} email={codeAddress(identity)} onVerified={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

/** 'Change email': the new address and the current password, then the code mailed to the new
 * address (the email stays the old one until it is entered). */
export function ChangeEmailDialog({ subject, identity }: { subject: Subject; identity: Identity }) {
  const t = useEmailT();
  const qc = useQueryClient();
  const id = useId();
  const [open, setOpen] = useState(false);
  // The identity as the server answered the change: its `pendingEmail` waits for the code.
  const [pending, setPending] = useState<Identity | null>(null);
  const { status, run } = useFormStatus();
  const schema = z.object({ email: emailField(t), password: z.string().min(1, t("errors.required")) });
  const form = useForm<z.infer<typeof schema>>({ resolver: zodResolver(schema), defaultValues: { email: "", password: "" } });
  const { errors } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      const changed = await run(() => changeEmail(subject.id, identity.id, values));
      if (!changed) return;
      setPending(changed);
      form.reset();
      await qc.invalidateQueries({ queryKey: meKey });
    } catch (e) {
      applyServerErrors(e, form.setError, ["email", "password"], t);
    }
  });
  function toggle(next: boolean) {
    setOpen(next);
    if (!next) {
      setPending(null);
      form.reset();
    }
  }
  return (
    <Dialog open={open} onOpenChange={toggle}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          {t("email.change.open")}
        </Button>
      </DialogTrigger>
      <DialogContent title={t("email.change.title")} description={pending ? undefined : t("email.change.description")} className="max-w-md">
        {pending ? (
          <VerificationStep subject={subject.id} identity={pending.id} email={codeAddress(pending)} onVerified={() => toggle(false)} />
        ) : (
          <form onSubmit={submit} className="grid gap-4" noValidate>
            <TextField id={`${id}-email`} label={t("email.change.email")} type="email" autoComplete="email" error={errors.email?.message} {...form.register("email")} />
            <TextField
              id={`${id}-password`}
              label={t("email.change.password")}
              type="password"
              autoComplete="current-password"
              error={errors.password?.message}
              {...form.register("password")}
            />
            <FieldError id={`${id}-error`} message={errors.email || errors.password ? undefined : errors.root?.server?.message} />
            <Button type="submit" disabled={status === "pending"}>
              {status === "pending" ? t("email.change.pending") : t("email.change.submit")}
            </Button>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

/** The email-add form of an account without an email identity (a wallet's, Telegram's): an
 * address and a password, then the code step for the new identity. Renders nothing for an
 * account that has an email identity. */
export function AddEmailSection({ subject }: { subject: Subject }) {
  const t = useEmailT();
  const qc = useQueryClient();
  const id = useId();
  const [added, setAdded] = useState<Identity | null>(null);
  const { status, run } = useFormStatus();
  const form = useForm<CredentialsForm>({ resolver: zodResolver(credentials(t)), defaultValues: { email: "", password: "" } });
  const { errors } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      const identity = await run(() => addEmailIdentity(subject.id, values));
      if (!identity) return;
      setAdded(identity);
      form.reset();
      await qc.invalidateQueries({ queryKey: meKey });
    } catch (e) {
      applyServerErrors(e, form.setError, ["email", "password"], t);
    }
  });
  const heading = `${id}-heading`;
  // Shown to an account without an email identity, and to this one until it confirms the address it added.
  if (!added && subject.identities.some(isEmailIdentity)) return null;
  return (
    <section aria-labelledby={heading} className="mt-6 grid max-w-md gap-3 rounded-lg border border-border p-4" data-testid="email-add">
      <h3 id={heading} className="font-medium">
        {added ? t("email.verify.title") : t("email.add.title")}
      </h3>
      {added ? (
        <VerificationStep subject={subject.id} identity={added.id} email={codeAddress(added)} onVerified={() => setAdded(null)} />
      ) : (
        <form onSubmit={submit} className="grid gap-3" noValidate aria-labelledby={heading}>
          <p className="text-sm text-neutral-700">{t("email.add.help")}</p>
          <TextField
            id={`${id}-email`}
            label={t("login.email")}
            type="email"
            autoComplete="email"
            placeholder={t("email.add.placeholder")}
            error={errors.email?.message}
            {...form.register("email")}
          />
          <TextField id={`${id}-password`} label={t("email.add.password")} type="password" autoComplete="new-password" error={errors.password?.message} {...form.register("password")} />
          <FieldError id={`${id}-error`} message={errors.email || errors.password ? undefined : errors.root?.server?.message} />
          <Button type="submit" disabled={status === "pending"} className="justify-self-start">
            {status === "pending" ? t("email.add.pending") : t("email.add.submit")}
          </Button>
        </form>
      )}
    </section>
  );
}
