import { api } from "@/api/client";
import type { components } from "@/api/schema";
import { AUTH, EMAIL_PROVIDER, type Identity, isEmailIdentity, type Subject } from "@/lib/session";

// The account screens' calls: sign-in (and its second factor), registration, passwords, and the
// account's identities. Who is signed in is the app's (`lib/session.ts`).

type ResetBody = components["schemas"]["AuthResetPasswordBody"];
/** What a password reset did besides: for an address never confirmed, the sign-in methods and the
 * second factor it removed (someone else may have added them). */
export type ResetOutcome = components["schemas"]["RbacResetOutcome"];
export type SentVerification = components["schemas"]["SubjectSendVerificationResult"];
type RbacIdentity = components["schemas"]["RbacIdentity"];

const EMAIL = `${AUTH}/email-and-password` as const;

/** The email identity whose address is not confirmed yet: until it is, the server links no
 * wallet nor Telegram to the account. */
export function unconfirmedEmail(s: Subject): Identity | undefined {
  return s.identities.find((i) => isEmailIdentity(i) && i.verifiedAt === null);
}

export interface Credentials {
  email: string;
  password: string;
}

/** The password step: the session's tokens (201), or, for an account with two-factor sign-in,
 * the challenge to send with a code (200, no session yet). */
export function signIn(c: Credentials) {
  return api.post(`${EMAIL}/authentication`, { body: { login: c.email, password: c.password }, noRefresh: true });
}

/** The answer of a first sign-in step that asks for the second (the password or wallet step). */
export function secondFactorChallenge(answer: unknown): string | null {
  if (!answer || typeof answer !== "object") return null;
  const a = answer as { secondFactor?: unknown; challenge?: unknown };
  return a.secondFactor === "totp" && typeof a.challenge === "string" ? a.challenge : null;
}

/** The second step: the challenge and a code from the authenticator app (or a recovery code). */
export function signInSecondFactor(challenge: string, code: string) {
  return api.post(`${AUTH}/second-factor`, { body: { challenge, code }, noRefresh: true });
}

export function register(c: Credentials) {
  return api.post(`${EMAIL}/registration`, { body: { login: c.email, password: c.password, roles: ["user"] }, noRefresh: true });
}

export function forgotPassword(email: string) {
  return api.post(`${EMAIL}/forgot-password`, { body: { email }, noRefresh: true });
}

export function resetPassword(body: ResetBody): Promise<ResetOutcome> {
  return api.post(`${EMAIL}/reset-password`, { body, noRefresh: true });
}

const IDENTITY = "/api/rbac/subjects/{id}/identities/{identityId}";

export function changePassword(subject: string, identity: string, body: components["schemas"]["IdentityChangePasswordBody"]) {
  // The document gives this body as free-form (the patch takes other identity fields too).
  return api.patch(IDENTITY, { params: { path: { id: subject, identityId: identity } }, body });
}

export function deleteIdentity(subject: string, identity: string) {
  return api.delete(IDENTITY, { params: { path: { id: subject, identityId: identity } } });
}

/** Confirms an email identity's address (or moves it to its `pendingEmail`) with the mailed code. */
export function verifyIdentity(subject: string, identity: string, code: string): Promise<RbacIdentity> {
  return api.post(`${IDENTITY}/verify`, { params: { path: { id: subject, identityId: identity } }, body: { code } });
}

/** Mails a new code: to the identity's `pendingEmail` when a change waits, else to its address. */
export function sendVerification(subject: string, identity: string): Promise<SentVerification> {
  return api.post(`${IDENTITY}/verification`, { params: { path: { id: subject, identityId: identity } } });
}

/** Asks to move an email identity to `email` (the current password confirms it is the owner):
 * the answer's `pendingEmail` waits for the code mailed to the new address. */
export function changeEmail(subject: string, identity: string, body: Credentials): Promise<RbacIdentity> {
  return api.patch(IDENTITY, { params: { path: { id: subject, identityId: identity } }, body: { ...body } });
}

/** Adds an email identity (not confirmed yet: a code is mailed) to an account that has none. */
export function addEmailIdentity(subject: string, c: Credentials): Promise<RbacIdentity> {
  // The document types the body by its provider only; the email fields go with it.
  const body: components["schemas"]["SubjectAddIdentityBody"] & Credentials = { provider: EMAIL_PROVIDER, email: c.email, password: c.password };
  return api.post("/api/rbac/subjects/{id}/identities", { params: { path: { id: subject } }, body });
}

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeRedirect(target: string | null, fallback = "/"): string {
  // A browser drops tabs and newlines from an address and reads "\\" as "/": "/\t/evil.example"
  // would leave the site.
  // eslint-disable-next-line no-control-regex
  if (!target || !target.startsWith("/") || target.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(target)) return fallback;
  return target;
}
