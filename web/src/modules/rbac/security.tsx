// The Security part of the account settings: two-factor sign-in (turn on with a QR code and a
// confirming code, then the ten recovery codes shown once; turn off with a code) and the account's
// sessions, each of which but this one can be signed out at once.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useId, useState } from "react";
import { toast } from "sonner";
import { api } from "@/api/client";
import { useTranslation } from "@/i18n";
import type { components } from "@/api/schema";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { Button } from "@/ui/button";
import { Badge } from "@/ui/card";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Input, Label } from "@/ui/input";
import { FieldError } from "./auth-card";
import { cleanCode, codeProblem } from "./second-factor";
import { useSecurityT } from "./security-i18n";
import { meKey, type Subject } from "@/lib/session";
import { shortUserAgent } from "@/lib/user-agent";

// The QR code library loads only when someone turns two-factor sign-in on.
const QRCodeSVG = lazy(() => import("qrcode.react").then((m) => ({ default: m.QRCodeSVG })));

type Enrolment = components["schemas"]["RbacTotpEnrolment"];
type Session = components["schemas"]["RbacSessionView"];

/** A base32 key in groups of four, as authenticator apps show it for typing. */
export function groupSecret(secret: string): string {
  return secret.replace(/\s+/g, "").replace(/(.{4})(?=.)/g, "$1 ");
}

function formatWhen(at: string, lang: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

/** A code field of its own (one-time code from the app, or a recovery code when allowed). */
function CodeField({ id, label, value, onChange, error }: { id: string; label: string; value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <div className="grid gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        autoComplete="one-time-code"
        inputMode="numeric"
        spellCheck={false}
        maxLength={64}
        className="max-w-48 font-mono tracking-widest"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const t = useSecurityT();
  const heading = useId();
  const text = `${codes.join("\n")}\n`;
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(t("security.copied"));
    } catch {
      toast.error(t("security.copyFailed"));
    }
  }
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${location.hostname}-recovery-codes.txt`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  return (
    <section aria-labelledby={heading} className="grid gap-3 rounded-lg border border-amber-700 bg-amber-50 p-4" data-testid="recovery-codes">
      <h4 id={heading} className="font-medium">
        {t("security.codesTitle")}
      </h4>
      <p className="text-sm text-neutral-800">{t("security.codesHelp")}</p>
      <ol className="grid grid-cols-2 gap-x-6 gap-y-1 font-mono text-sm sm:grid-cols-5">
        {codes.map((c) => (
          <li key={c} data-testid="recovery-code">
            {c}
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap gap-2">
        <Button size="sm" variant="outline" onClick={() => void copy()}>
          {t("security.copy")}
        </Button>
        <Button size="sm" variant="outline" onClick={download}>
          {t("security.download")}
        </Button>
        <Button size="sm" className="ml-auto" onClick={onDone}>
          {t("security.saved")}
        </Button>
      </div>
    </section>
  );
}

function Enrol({ subject, enrolment, onCodes, onCancel }: { subject: Subject; enrolment: Enrolment; onCodes: (codes: string[]) => void; onCancel: () => void }) {
  const t = useSecurityT();
  const id = useId();
  const passwordId = useId();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string>();
  // An account with a password confirms it is its owner (a stolen session alone cannot enrol).
  const hasPassword = subject.identities.some((i) => i.provider === "email_and_password");
  const [password, setPassword] = useState("");
  const [passwordError, setPasswordError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(ev: React.FormEvent) {
    ev.preventDefault();
    const sent = cleanCode(code, false);
    if (hasPassword && !password) {
      setPasswordError(t("security.password.required"));
      return;
    }
    if (codeProblem(sent, false)) {
      setError(t("security.code.format"));
      return;
    }
    setBusy(true);
    try {
      const done = await api.post("/api/rbac/subjects/{id}/totp/confirm", { params: { path: { id: subject.id } }, body: hasPassword ? { code: sent, password } : { code: sent } });
      onCodes(done.recoveryCodes);
    } catch (e) {
      if (e instanceof ApiError && e.status === 422 && e.fields.password) setPasswordError(t("security.password.wrong"));
      else setError(e instanceof ApiError && e.status === 422 ? t("security.code.wrong") : errorMessage(e, t));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="grid gap-4" data-testid="totp-enrol">
      <p className="text-sm text-neutral-800">{t("security.scan")}</p>
      <div className="flex flex-wrap items-start gap-6">
        <div className="rounded-md border border-border bg-white p-3">
          <Suspense fallback={<div className="size-44" aria-hidden />}>
            <QRCodeSVG value={enrolment.otpauthUrl} size={176} marginSize={2} title={t("security.qr")} data-testid="totp-qr" />
          </Suspense>
        </div>
        <form className="grid min-w-60 flex-1 gap-3" noValidate onSubmit={(e) => void submit(e)} aria-label={t("security.twoFactor")}>
          <div className="grid gap-1">
            <span className="text-sm font-medium">{t("security.secret")}</span>
            <code className="break-all rounded bg-muted px-2 py-1 text-sm" data-testid="totp-secret" data-secret={enrolment.secret}>
              {groupSecret(enrolment.secret)}
            </code>
          </div>
          {hasPassword ? (
            <div className="grid gap-1.5">
              <Label htmlFor={passwordId}>{t("security.password.label")}</Label>
              <Input
                id={passwordId}
                type="password"
                autoComplete="current-password"
                className="max-w-64"
                value={password}
                aria-invalid={passwordError ? true : undefined}
                aria-describedby={passwordError ? `${passwordId}-error` : undefined}
                onChange={(e) => {
                  setPassword(e.target.value);
                  setPasswordError(undefined);
                }}
              />
              <FieldError id={`${passwordId}-error`} message={passwordError} />
            </div>
          ) : null}
          <CodeField
            id={id}
            label={t("security.code.label")}
            value={code}
            error={error}
            onChange={(v) => {
              setCode(v);
              setError(undefined);
            }}
          />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={busy}>
              {t("security.confirm")}
            </Button>
            <Button size="sm" variant="outline" onClick={onCancel}>
              {t("security.cancel")}
            </Button>
          </div>
        </form>
      </div>
    </div>
  );
}

function DisableDialog({ subject, open, onOpenChange, onDone }: { subject: Subject; open: boolean; onOpenChange: (o: boolean) => void; onDone: () => void }) {
  const t = useSecurityT();
  const id = useId();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function submit(ev: React.FormEvent) {
    ev.preventDefault();
    // A recovery code is taken here too: its letters and dash stay.
    const sent = code.trim();
    if (!sent) {
      setError(t("security.code.format"));
      return;
    }
    setBusy(true);
    try {
      await api.delete("/api/rbac/subjects/{id}/totp", { params: { path: { id: subject.id } }, body: { code: /^\d[\d\s]*$/.test(sent) ? cleanCode(sent, false) : sent } });
      onDone();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 422 ? t("security.code.wrong") : errorMessage(e, t));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={t("security.disableTitle")} description={t("security.disableHelp")} className="max-w-md">
        <form className="grid gap-4" noValidate onSubmit={(e) => void submit(e)}>
          <CodeField
            id={id}
            label={t("security.code.label")}
            value={code}
            error={error}
            onChange={(v) => {
              setCode(v);
              setError(undefined);
            }}
          />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => onOpenChange(false)}>
              {t("security.cancel")}
            </Button>
            <Button type="submit" variant="destructive" disabled={busy}>
              {t("security.disable")}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

type Step = { kind: "idle" } | { kind: "enrolling"; enrolment: Enrolment } | { kind: "codes"; codes: string[] };

function TwoFactor({ subject }: { subject: Subject }) {
  const t = useSecurityT();
  const qc = useQueryClient();
  const heading = useId();
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const [disabling, setDisabling] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const enabled = !!subject.secondFactor?.enabled;
  const required = !!subject.secondFactor?.required;

  async function start() {
    setBusy(true);
    setError(undefined);
    try {
      setStep({ kind: "enrolling", enrolment: await api.post("/api/rbac/subjects/{id}/totp", { params: { path: { id: subject.id } } }) });
    } catch (e) {
      setError(errorMessage(e, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby={heading} className="grid gap-3 rounded-lg border border-border p-4" data-testid="two-factor">
      <div className="flex flex-wrap items-center gap-3">
        <h3 id={heading} className="font-medium">
          {t("security.twoFactor")}
        </h3>
        <Badge data-testid="totp-status" data-enabled={enabled} className={enabled ? "border-green-700 bg-green-50 text-green-900" : undefined}>
          {enabled ? t("security.on") : t("security.off")}
        </Badge>
        {step.kind === "idle" ? (
          enabled ? (
            <Button size="sm" variant="outline" className="ml-auto" onClick={() => setDisabling(true)}>
              {t("security.disable")}
            </Button>
          ) : (
            <Button size="sm" className="ml-auto" disabled={busy} onClick={() => void start()}>
              {t("security.enable")}
            </Button>
          )
        ) : null}
      </div>
      {required && !enabled ? (
        <p className="rounded-md border border-amber-700 bg-amber-50 p-3 text-sm text-amber-950" data-testid="totp-required">
          {t("security.required")}
        </p>
      ) : null}
      {step.kind === "idle" ? <p className="text-sm text-neutral-700">{enabled ? t("security.onHelp") : t("security.offHelp")}</p> : null}
      {error ? (
        <p role="alert" className="text-sm text-destructive">
          {error}
        </p>
      ) : null}
      {step.kind === "enrolling" ? (
        <Enrol
          subject={subject}
          enrolment={step.enrolment}
          onCancel={() => setStep({ kind: "idle" })}
          onCodes={(codes) => {
            setStep({ kind: "codes", codes });
            toast.success(t("security.enabled"));
            // On now, for this session too (the server upgraded its token); the other sessions ended.
            void qc.invalidateQueries({ queryKey: meKey });
            void qc.invalidateQueries({ queryKey: ["session", "sessions"] });
          }}
        />
      ) : null}
      {step.kind === "codes" ? <RecoveryCodes codes={step.codes} onDone={() => setStep({ kind: "idle" })} /> : null}
      {disabling ? (
        <DisableDialog
          subject={subject}
          open
          onOpenChange={setDisabling}
          onDone={() => {
            setDisabling(false);
            toast.success(t("security.disabled"));
            void qc.invalidateQueries({ queryKey: meKey });
          }}
        />
      ) : null}
    </section>
  );
}

function Sessions({ subject }: { subject: Subject }) {
  const t = useSecurityT();
  const { i18n } = useTranslation();
  const heading = useId();
  const sessions = useQuery({
    queryKey: ["session", "sessions", subject.id],
    queryFn: () => api.get("/api/rbac/subjects/{id}/sessions", { params: { path: { id: subject.id } } }),
  });
  const [ending, setEnding] = useState<string | null>(null);
  async function end(s: Session) {
    setEnding(s.id);
    try {
      await api.delete("/api/rbac/subjects/{id}/sessions/{sessionId}", { params: { path: { id: subject.id, sessionId: s.id } } });
      toast.success(t("security.signedOut"));
      await sessions.refetch();
    } catch (e) {
      toast.error(errorMessage(e, t));
    } finally {
      setEnding(null);
    }
  }
  return (
    <section aria-labelledby={heading} className="grid gap-3 rounded-lg border border-border p-4" data-testid="sessions">
      <h3 id={heading} className="font-medium">
        {t("security.sessions")}
      </h3>
      <p className="text-sm text-neutral-700">{t("security.sessionsHelp")}</p>
      {sessions.isError ? (
        <p role="alert" className="text-sm text-destructive">
          {errorMessage(sessions.error, t)}
        </p>
      ) : null}
      <ul className="grid gap-2">
        {(sessions.data ?? []).map((s) => {
          const device = shortUserAgent(s.userAgent) ?? t("security.unknownDevice");
          return (
            <li key={s.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-border p-3 text-sm" data-testid="session" data-current={s.current} data-session={s.id}>
              <div className="grid min-w-0 flex-1 gap-0.5">
                <span className="flex flex-wrap items-center gap-2 font-medium">
                  <span title={s.userAgent ?? undefined}>{device}</span>
                  {s.current ? <Badge className="border-green-700 bg-green-50 text-green-900">{t("security.thisDevice")}</Badge> : null}
                  {s.secondFactor ? <Badge>{t("security.withCode")}</Badge> : null}
                </span>
                <span className="text-neutral-700">
                  {s.ip ? (
                    <>
                      <span className="sr-only">{t("security.ip")}: </span>
                      <span className="font-mono">{s.ip}</span> ·{" "}
                    </>
                  ) : null}
                  {t("security.lastUsed", { when: formatWhen(s.lastUsedAt, i18n.language) })} · {t("security.since", { when: formatWhen(s.createdAt, i18n.language) })}
                </span>
              </div>
              {s.current ? (
                // Its own line on a phone: beside the details it squeezed them into a sliver.
                <span className="basis-full text-xs text-neutral-700 sm:basis-auto">{t("security.currentHint")}</span>
              ) : (
                <Button size="sm" variant="outline" disabled={ending === s.id} aria-label={t("security.signOutNamed", { device })} onClick={() => void end(s)}>
                  {t("security.signOut")}
                </Button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Two-factor sign-in and sessions, under the account's settings (`#security`). */
export function SecuritySection({ subject }: { subject: Subject }) {
  const t = useSecurityT();
  const heading = useId();
  return (
    <section id="security" aria-labelledby={heading} className="mt-10 grid gap-4">
      <h2 id={heading} className="text-lg font-medium">
        {t("security.title")}
      </h2>
      <TwoFactor subject={subject} />
      {/* Until an admin who must enrol has, the server lets through enrolment only. */}
      {subject.secondFactor?.required && !subject.secondFactor.satisfied ? null : <Sessions subject={subject} />}
    </section>
  );
}
