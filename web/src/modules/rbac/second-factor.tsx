// The second step of a sign-in for an account with two-factor sign-in: the 6-digit code from the
// authenticator app, or a recovery code, sent with the challenge the first step answered.
import { useCallback, useId, useRef, useState } from "react";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { Button } from "@/ui/button";
import { Input, Label } from "@/ui/input";
import { FieldError } from "./auth-card";
import { useSecurityT } from "./security-i18n";
import { signInSecondFactor } from "./auth";

/** A typed code without spaces and dashes (apps show "123 456"; recovery codes may be grouped). */
export function cleanCode(code: string, recovery: boolean): string {
  const s = code.trim().replace(/\s+/g, "");
  return recovery ? s : s.replace(/-/g, "");
}

/** Whether a typed code may be sent: six digits from the app, or any recovery code. */
export function codeProblem(code: string, recovery: boolean): "format" | "empty" | null {
  if (recovery) return code ? null : "empty";
  return /^\d{6}$/.test(code) ? null : "format";
}

/**
 * The code step. `onSignedIn` runs once the server opened the session; `onRestart` sends the
 * visitor back to the password (with a message when the challenge expired, 401).
 */
export function SecondFactorStep({ challenge, onSignedIn, onRestart }: { challenge: string; onSignedIn: () => void | Promise<void>; onRestart: (message?: string) => void }) {
  const t = useSecurityT();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  // The field takes the focus when the step opens and when it switches to a recovery code (a new field).
  const focusNew = useCallback((el: HTMLInputElement | null) => {
    input.current = el;
    el?.focus();
  }, []);

  async function submit(ev: React.FormEvent) {
    ev.preventDefault();
    const sent = cleanCode(code, recovery);
    const problem = codeProblem(sent, recovery);
    if (problem) {
      setError(t(`security.code.${problem}`));
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await signInSecondFactor(challenge, sent);
      await onSignedIn();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        onRestart(t("security.code.expired"));
        return;
      }
      // A wrong code keeps the step (422); too many tries (429) says how long to wait.
      setError(e instanceof ApiError && e.status === 422 ? t("security.code.wrong") : errorMessage(e, t));
      setCode("");
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  const label = recovery ? t("security.code.recoveryLabel") : t("security.code.label");
  return (
    <form onSubmit={(e) => void submit(e)} className="grid gap-4" noValidate aria-label={t("security.code.title")} data-testid="second-factor">
      <div>
        <h2 className="text-lg font-semibold">{t("security.code.title")}</h2>
        <p className="mt-1 text-sm text-neutral-700">{recovery ? t("security.code.recoverySubtitle") : t("security.code.subtitle")}</p>
      </div>
      <div className="grid gap-1.5">
        <Label htmlFor={id}>{label}</Label>
        <Input
          ref={focusNew}
          id={id}
          key={recovery ? "recovery" : "app"}
          name={recovery ? "recovery-code" : "one-time-code"}
          autoComplete={recovery ? "off" : "one-time-code"}
          inputMode={recovery ? "text" : "numeric"}
          maxLength={recovery ? 64 : 7}
          spellCheck={false}
          className={recovery ? "font-mono" : "font-mono tracking-[0.3em]"}
          value={code}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => setCode(e.target.value)}
        />
        <FieldError id={`${id}-error`} message={error} />
      </div>
      <Button type="submit" variant="brand" disabled={busy} className="w-full">
        {t("security.code.submit")}
      </Button>
      <div className="flex flex-wrap justify-between gap-2 text-sm">
        <Button
          variant="link"
          size="sm"
          onClick={() => {
            setRecovery((r) => !r);
            setCode("");
            setError(undefined);
          }}
        >
          {recovery ? t("security.code.useApp") : t("security.code.useRecovery")}
        </Button>
        <Button variant="link" size="sm" onClick={() => onRestart()}>
          {t("security.code.back")}
        </Button>
      </div>
    </form>
  );
}
