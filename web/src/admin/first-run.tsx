import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { useEditorT } from "@/admin/editor-i18n";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { meKey } from "@/lib/session";
import { Button } from "@/ui/button";
import { Input, Label } from "@/ui/input";
import { adminSignInUrl } from "./language";

/** Whether the site still waits for its first admin (no account is one yet). */
export function useSetupNeeded() {
  return useQuery({ queryKey: ["rbac", "setup"], queryFn: () => api.get("/api/rbac/subjects/authentication/setup"), staleTime: 60_000 });
}

/**
 * Someone signed out at the admin: on a new site with no admin yet, the form that makes the first
 * one with the setup code `stoa serve` printed in its log; otherwise, the sign-in, and back here.
 */
export function SignedOut() {
  const { pathname, search } = useLocation();
  const setup = useSetupNeeded();
  if (setup.isPending) return null;
  if (setup.data?.needed) return <FirstRun />;
  return <Navigate replace to={adminSignInUrl(pathname + search)} />;
}

function FirstRun() {
  const t = useEditorT();
  const qc = useQueryClient();
  const [code, setCode] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const create = useMutation({
    mutationFn: () => api.post("/api/rbac/subjects/authentication/setup", { body: { code: code.trim(), login: email.trim(), password } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ["rbac", "setup"] });
      await qc.invalidateQueries({ queryKey: meKey });
    },
  });
  const fieldError = (name: string) => (create.error instanceof ApiError ? create.error.fields[name]?.[0] : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const problem = create.error instanceof ApiError ? create.error.first : create.error ? t("admin.failed") : null;
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      <form onSubmit={submit} className="grid w-full max-w-md gap-4 rounded-xl border border-border p-6 shadow-sm" aria-labelledby="first-run-title">
        <h1 id="first-run-title" className="text-2xl font-semibold">
          {t("ed.setup.title")}
        </h1>
        <p className="text-sm text-neutral-700">{t("ed.setup.intro")}</p>
        <div className="grid gap-1.5">
          <Label htmlFor="setup-code">{t("ed.setup.code")}</Label>
          <Input id="setup-code" value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} required aria-describedby="setup-code-help" aria-invalid={!!fieldError("code")} />
          <p id="setup-code-help" className="text-xs text-muted-foreground">
            {t("ed.setup.codeHelp")}
          </p>
          {fieldError("code") ? <p className="text-sm text-destructive">{t("ed.setup.wrongCode")}</p> : null}
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="setup-email">{t("ed.setup.email")}</Label>
          <Input id="setup-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" required />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="setup-password">{t("ed.setup.password")}</Label>
          <Input id="setup-password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" minLength={8} maxLength={128} required aria-describedby="setup-password-help" />
          <p id="setup-password-help" className="text-xs text-muted-foreground">
            {t("ed.setup.passwordHelp")}
          </p>
        </div>
        {problem && !fieldError("code") ? (
          <p role="alert" className="text-sm text-destructive">
            {problem}
          </p>
        ) : null}
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? t("admin.loading") : t("ed.setup.submit")}
        </Button>
      </form>
    </main>
  );
}
