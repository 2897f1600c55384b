import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "@/api/http";

export const AUTH = "/api/rbac/subjects/authentication";

export interface Identity {
  id: string;
  email: string | null;
  account: string | null;
  provider: string;
}

export interface Subject {
  id: string;
  slug?: string;
  admin: boolean;
  roles: { id: string; slug: string; title: string }[];
  identities: Identity[];
}

export const meKey = ["session", "me"] as const;

/** The signed-in subject, or null. Asks the server (the tokens are HttpOnly cookies). */
export function useMe() {
  return useQuery({ queryKey: meKey, queryFn: () => request<Subject | null>("GET", `${AUTH}/me`) });
}

/** The email of a subject's first email identity, or the wallet address. */
export function displayName(s: Subject): string {
  const email = s.identities.find((i) => i.email)?.email;
  return email ?? s.identities.find((i) => i.account)?.account ?? s.id;
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => request<unknown>("POST", `${AUTH}/logout`, { noRefresh: true }),
    onSettled: () => {
      qc.setQueryData(meKey, null);
      void qc.invalidateQueries();
    },
  });
}

export interface Credentials {
  email: string;
  password: string;
}

export function signIn(c: Credentials) {
  return request<unknown>("POST", `${AUTH}/email-and-password/authentication`, { body: c, noRefresh: true });
}

export function register(c: Credentials) {
  return request<unknown>("POST", `${AUTH}/email-and-password/registration`, {
    body: { ...c, roles: ["user"] },
    noRefresh: true,
  });
}

export function forgotPassword(email: string) {
  return request<unknown>("POST", `${AUTH}/email-and-password/forgot-password`, { body: { email }, noRefresh: true });
}

export function resetPassword(body: { code: string; password: string; passwordConfirmation: string }) {
  return request<unknown>("POST", `${AUTH}/email-and-password/reset-password`, { body, noRefresh: true });
}

export function changePassword(subject: string, identity: string, body: { password: string; newPassword: string }) {
  return request<unknown>("PATCH", `/api/rbac/subjects/${subject}/identities/${identity}`, { body });
}

export function deleteIdentity(subject: string, identity: string) {
  return request<unknown>("DELETE", `/api/rbac/subjects/${subject}/identities/${identity}`);
}

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeRedirect(target: string | null, fallback = "/"): string {
  if (!target || !target.startsWith("/") || target.startsWith("//") || target.includes("\\")) return fallback;
  return target;
}
