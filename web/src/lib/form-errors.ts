import type { TFunction } from "./translate";
import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError } from "@/api/http";

/**
 * Messages of the server a visitor can meet, each with its catalogue key (`errors.*`) and the
 * values the key interpolates. The server's words are English and stable (crates/modules/*):
 * a field message (`fields.email: ["must be …"]`) or the error's own message.
 */
const KNOWN: [RegExp, string, ((m: RegExpExecArray) => Record<string, string | number>)?][] = [
  [/^wrong email or password/i, "errors.wrongCredentials"],
  [/^is already registered/i, "errors.emailTaken"],
  [/^is already linked to an account/i, "errors.alreadyLinked"],
  [/^must be at least (\d+) characters/i, "errors.minLength", (m) => ({ count: Number(m[1]) })],
  [/^(?:must be )?at most (\d+) characters|^is longer than (\d+) characters/i, "errors.maxLength", (m) => ({ count: Number(m[1] ?? m[2]) })],
  [/^is one of the most common passwords/i, "errors.commonPassword"],
  [/^does not match the password|^passwords do not match/i, "errors.passwordMismatch"],
  [/^the reset code is invalid/i, "errors.resetCode"],
  [/^is not the current password/i, "errors.wrongPassword"],
  [/^must be an email address/i, "errors.email"],
  [/^is required to send the invoice/i, "errors.emailForInvoice"],
  [/^is required$/i, "errors.required"],
  [/^must be a number$/i, "errors.number"],
  [/^must be from (-?[\d.]+) to (-?[\d.]+)$/i, "errors.between", (m) => ({ min: m[1] ?? "", max: m[2] ?? "" })],
  [/^must be at least (-?[\d.]+)$/i, "errors.min", (m) => ({ min: m[1] ?? "" })],
  [/^must be at most (-?[\d.]+)$/i, "errors.max", (m) => ({ max: m[1] ?? "" })],
  [/^must be a whole number from 1 to (\d+)/i, "errors.quantity", (m) => ({ max: m[1] ?? "" })],
  [/^too many requests; try again in (\d+) s/i, "errors.retryIn", (m) => ({ count: Number(m[1]) })],
  [/busy checking passwords|too many sign-in attempts/i, "errors.busy"],
  [/^the refresh token is invalid or expired/i, "errors.sessionExpired"],
  [/^only an order still in the cart|^the order left the cart meanwhile|is not in the cart any more/i, "errors.orderLeftCart"],
  [/^these orders are already being paid/i, "errors.alreadyPaying"],
  [/^invalid provider/i, "errors.provider"],
  [/has no price/i, "errors.noPrice"],
  [/costs nothing/i, "errors.nothingToPay"],
  [/^the total is too large/i, "errors.totalTooLarge"],
  [/no longer exists$|^no product /i, "errors.productGone"],
  [/^wallet sign-in refused/i, "errors.walletRefused"],
  [/^the telegram login/i, "errors.telegram"],
  [/^write a message of at least/i, "errors.messageEmpty"],
  [/^a message may hold at most (\d+) characters/i, "errors.messageTooLong", (m) => ({ count: Number(m[1]) })],
  [/^give the profile a name/i, "errors.profileName"],
  [/^an account may have at most (\d+) profiles/i, "errors.tooManyProfiles", (m) => ({ count: Number(m[1]) })],
  [/^the message was deleted meanwhile|^no such message/i, "errors.messageGone"],
  [/^is wrong or expired; check the latest mail/i, "errors.verifyCode"],
  [/^too many wrong codes for this address/i, "errors.verifyClosed"],
  [/^this address is already confirmed/i, "errors.alreadyConfirmed"],
  [/^is already this account's address/i, "errors.sameEmail"],
  [/^confirm your email address (\S+) first/i, "errors.confirmEmailFirst", (m) => ({ email: m[1] ?? "" })],
];

/** The error codes of the server (crates/kernel/src/error.rs) that have a catalogue entry. */
const CODES = new Set(["bad_request", "unauthorized", "forbidden", "not_found", "conflict", "payload_too_large", "unsupported_media_type", "invalid_input", "too_many_requests", "unavailable", "internal"]);
/** The code an answer without one (a proxy's error page) stands for, by its status. */
const BY_STATUS: Record<number, string> = { 400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid_input", 429: "too_many_requests", 500: "internal", 502: "unavailable", 503: "unavailable", 504: "unavailable" };

/** A known server message in the page's language, or undefined. */
function knownMessage(message: string, t: TFunction): string | undefined {
  for (const [pattern, key, values] of KNOWN) {
    const m = pattern.exec(message.trim());
    if (m) return t(key, values?.(m) ?? {});
  }
  return undefined;
}

/** A server message about one field, in the page's language (the server's own words when the
 * catalogue has none for it). */
export function fieldMessage(message: string, t: TFunction): string {
  return knownMessage(message, t) ?? message;
}

/**
 * What to tell a visitor about a failed call, in the page's language: a known field or error
 * message, else the catalogue's sentence for the error's code (or, without a known code, its
 * status), else the server's message. A call that never reached the server says so; any other failure is
 * `fallback` (or a generic sentence).
 */
export function errorMessage(error: unknown, t: TFunction, fallback?: string): string {
  if (error instanceof ApiError) {
    const first = Object.values(error.fields).find((m) => m[0])?.[0];
    const code = CODES.has(error.code) ? error.code : BY_STATUS[error.status];
    return (first && knownMessage(first, t)) ?? knownMessage(error.message, t) ?? (code ? t(`errors.code.${code}`) : error.message || fallback || t("errors.unknown"));
  }
  // fetch() rejects with a TypeError when the request never got an answer.
  if (error instanceof TypeError) return t("errors.network");
  return fallback ?? t("errors.unknown");
}

/**
 * Puts a failed call's messages on the form: each `fields` entry on its field (when the form has
 * it), and the first message on `root` so the form's message area shows it. With `t`, the
 * messages are in the page's language (see `errorMessage`); without it (the back office), the
 * server's own words.
 */
export function applyServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  known: readonly string[],
  t?: TFunction,
): string {
  const message = t ? errorMessage(error, t) : error instanceof ApiError ? error.first : error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    for (const [field, messages] of Object.entries(error.fields)) {
      const name = field.split(".")[0] ?? field;
      // The account endpoints call the email `login`.
      const root = name === "login" && known.includes("email") ? "email" : name;
      if (known.includes(root) && messages[0]) {
        setError(root as Path<T>, { type: "server", message: t ? fieldMessage(messages[0], t) : messages[0] });
      }
    }
  }
  setError("root.server" as Path<T>, { type: "server", message });
  return message;
}
