import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import type { components } from "@/api/schema";

// Who is signed in, as every part of the app asks it: the subject, whether it is a guest, its name,
// what it may call, signing out. The account's own calls (sign-in, registration, identities) are
// rbac's (`modules/rbac/auth.ts`).

type RbacIdentity = components["schemas"]["RbacIdentity"];

export const AUTH = "/api/rbac/subjects/authentication";

/** The parts of an identity the account screens use (the document's RbacIdentity has them). */
export interface Identity {
  id: string;
  email: string | null;
  account: string | null;
  provider: string;
  /** An email identity: when its address was confirmed (null: not yet). */
  verifiedAt: RbacIdentity["verifiedAt"];
  /** An email identity: the address that replaces its email once the code mailed there is entered. */
  pendingEmail: RbacIdentity["pendingEmail"];
}

/** The provider of an email-and-password identity. */
export const EMAIL_PROVIDER = "email_and_password";

export function isEmailIdentity(i: Identity): boolean {
  return i.provider === EMAIL_PROVIDER;
}

/** The parts of the signed-in subject the screens use (the document's RbacMe has them). */
export interface Subject {
  id: string;
  slug?: string;
  admin: boolean;
  roles: { id: string; slug: string; title: string }[];
  identities: Identity[];
  /** The person's display name (their social profile's), when the server gives one. */
  name?: string | null;
  /** The language the person uses (the admin's, once chosen there; the site's mails to them). */
  language?: string | null;
  /** Two-factor sign-in: on for this account, required of it (an admin under
   * STOA_ADMIN_2FA=required), and whether this session has it (false: enrol before anything else). */
  secondFactor?: { enabled: boolean; required: boolean; satisfied: boolean };
}

export const meKey = ["session", "me"] as const;

/** The signed-in subject, or null. Asks the server (the tokens are HttpOnly cookies). */
export function useMe() {
  return useQuery({ queryKey: meKey, queryFn: (): Promise<Subject | null> => api.get(`${AUTH}/me`) });
}

/**
 * The provider of an identity that is an address to write to, not a way to sign in: a guest who
 * typed an email at checkout gets one (its receipts and order mails go there).
 */
export const CONTACT_PROVIDER = "email";

/**
 * Whether `s` is a guest: a subject made for an anonymous visitor (checkout starts one: its cart
 * and orders belong to it) with no identity it can sign in with — none, or contact addresses only.
 * The screens show a guest exactly as a visitor who is not signed in ('Sign in', never 'Sign out'),
 * except for its cart. `isGuest(null)`: false (there is no subject at all).
 */
export function isGuest(s: Subject | null | undefined): boolean {
  if (!s) return false;
  if (s.admin) return false;
  return s.identities.every((i) => i.provider === CONTACT_PROVIDER);
}

/** Whether `s` is a person signed in to an account (not a guest, not nobody). */
export function isSignedIn(s: Subject | null | undefined): s is Subject {
  return !!s && !isGuest(s);
}

/**
 * The name a signed-in person is shown by: their profile's name, else the address of an identity
 * they sign in with; `fallback` ('Account') otherwise. Never an id: a wallet-only account has a
 * long hex address and an anonymous one a UUID, neither of which is a name.
 */
export function displayName(s: Subject, fallback: string): string {
  const name = s.name?.trim();
  if (name) return name;
  const own = s.identities.filter((i) => i.provider !== CONTACT_PROVIDER);
  const email = own.find((i) => isEmailIdentity(i) && i.email)?.email ?? own.find((i) => i.email)?.email;
  return email ?? fallback;
}

export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post(`${AUTH}/logout`, { noRefresh: true }),
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

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** Whether the caller may call `method route` (false when the server says 401 or 403). */
export async function isAuthorized(method: HttpMethod, route: string): Promise<boolean> {
  try {
    const answer = await api.get(`${AUTH}/is-authorized`, { params: { query: { "action[method]": method, "action[route]": route } } });
    return answer.ok;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return false;
    throw e;
  }
}
