//! The campaign counter (trees planted: the paid quantity, `website-builder`'s progress bar) moves
//! on an open page. A payment changes only private records (orders, their lines), whose `revalidate`
//! events go to administrators, so a visitor's page asks again every few seconds while it is
//! shown — one small cached read. A public event for a paid order would make this a push.
import type { QueryClient } from "@tanstack/react-query";

/** The counter's query (`website-builder`'s ProgressBar reads it; `lib/live.ts` revalidates it). */
export const COUNTER_KEY = ["paid-orders-to-products-quantity"] as const;

/** How often an open, visible page asks for the counter. */
export const COUNTER_POLL_MS = 10_000;

/** Makes every counter on the page refetch every `every` ms while the tab is visible (a hidden
 * tab does not ask; it asks again when shown). */
export function pollCounter(qc: QueryClient, every = COUNTER_POLL_MS): void {
  qc.setQueryDefaults(COUNTER_KEY, { refetchInterval: every, refetchIntervalInBackground: false });
}
