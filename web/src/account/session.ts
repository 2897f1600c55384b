import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "@/api/http";
import type { paths } from "@/api/schema";

/** The JSON body of a POST route, from the generated OpenAPI types. */
type PostBody<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { "application/json": infer B } } } } ? B : never;
type LoginBody = PostBody<"/api/rbac/subjects/authentication/email-and-password/authentication">;
type RegistrationBody = PostBody<"/api/rbac/subjects/authentication/email-and-password/registration">;
type ForgotBody = PostBody<"/api/rbac/subjects/authentication/email-and-password/forgot-password">;
type ResetBody = PostBody<"/api/rbac/subjects/authentication/email-and-password/reset-password">;

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
      void sessionChanged(qc);
    },
  });
}

/** Queries that belong to the signed-in subject (its cart and orders, its profiles and chats). */
const PRIVATE_QUERIES = new Set<unknown>(["commerce", "social"]);

/**
 * After sign-in or sign-out: data of the previous subject (its cart, its orders, its chats) is
 * dropped, not refetched — its queries are still mounted with the old id until the next render
 * and would answer 401/403 — and everything else is refetched.
 */
export function sessionChanged(qc: ReturnType<typeof useQueryClient>) {
  qc.removeQueries({ predicate: (q) => PRIVATE_QUERIES.has(q.queryKey[0]) });
  return qc.invalidateQueries({ predicate: (q) => !PRIVATE_QUERIES.has(q.queryKey[0]) });
}

export interface Credentials {
  email: string;
  password: string;
}

export function signIn(c: Credentials) {
  const body: LoginBody = { login: c.email, password: c.password };
  return request<unknown>("POST", `${AUTH}/email-and-password/authentication`, { body, noRefresh: true });
}

export function register(c: Credentials) {
  const body: RegistrationBody = { login: c.email, password: c.password, roles: ["user"] };
  return request<unknown>("POST", `${AUTH}/email-and-password/registration`, { body, noRefresh: true });
}

export function forgotPassword(email: string) {
  const body: ForgotBody = { email };
  return request<unknown>("POST", `${AUTH}/email-and-password/forgot-password`, { body, noRefresh: true });
}

export function resetPassword(body: ResetBody) {
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
