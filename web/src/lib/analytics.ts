// First-party, cookie-free analytics: a page view per client-side navigation and a few named events,
// posted to `/api/analytic/collect` (ADR 0011). Nothing here identifies a visitor; the server counts
// visitors by a daily-salted hash it forgets.

import type { operations } from "@/api/schema";

export const COLLECT = "/api/analytic/collect";

/** A hit as the server's OpenAPI document describes it. */
type CollectBody = NonNullable<operations["analyticCollect"]["requestBody"]>["content"]["application/json"];

/** Events the page sends (`checkout-completed` is recorded by the server when an order is paid);
 * the server's enum of names bounds them, so a renamed event does not compile. */
export type AnalyticEvent = Exclude<NonNullable<CollectBody["name"]>, "checkout-completed">;

export type Hit = ({ type: "view"; path: string; referrer?: string; language?: string } | { type: "event"; name: AnalyticEvent; path: string }) & CollectBody;

/** Whether a path is counted: the site's pages, never the back office. */
export function counted(path: string): boolean {
  return path.startsWith("/") && path !== "/admin" && !path.startsWith("/admin/");
}

/** A page's path as counted: `/ru/` and `/ru` are one page. */
export function pagePath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
}

/** Sends one hit without waiting: `sendBeacon` (survives leaving the page), else a keepalive fetch. */
export function send(hit: Hit): void {
  if (typeof window === "undefined" || !counted(hit.path)) return;
  // The server reads the body as JSON whatever its type; a string goes as text/plain, which needs
  // no preflight.
  const body = JSON.stringify(hit);
  try {
    if (typeof navigator.sendBeacon === "function" && navigator.sendBeacon(COLLECT, body)) return;
  } catch {
    // A beacon refused (too large, no permission): try fetch.
  }
  try {
    void fetch(COLLECT, { method: "POST", body, keepalive: true, credentials: "omit" }).catch(() => undefined);
  } catch {
    // Analytics never breaks the page.
  }
}

let firstView = true;
let lastPath: string | null = null;

/**
 * Counts a page view of `path` in `language`. The same path twice in a row is one view (a jump to
 * an anchor of the page, or an effect that runs twice). The referrer goes with the first view
 * only (later ones come from the site itself).
 */
export function trackView(location: string, language: string): void {
  const path = pagePath(location);
  if (!counted(path) || path === lastPath) return;
  lastPath = path;
  const hit: Hit = { type: "view", path, language };
  if (firstView && typeof document !== "undefined" && document.referrer) hit.referrer = document.referrer;
  firstView = false;
  send(hit);
}

/** Counts a named event on the current page. */
export function trackEvent(name: AnalyticEvent, path = typeof location === "undefined" ? "/" : location.pathname): void {
  send({ type: "event", name, path: pagePath(path) });
}

/** Forgets what was sent (tests). */
export function resetAnalytics(): void {
  firstView = true;
  lastPath = null;
}
