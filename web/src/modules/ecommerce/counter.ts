//! The campaign counter (trees planted: the paid quantity, `website-builder`'s progress bar) on an
//! open page. A payment tells every open page through the live channel (`revalidate`
//! {entities: ["ecommerce.paid-orders"]}, which refetches the counter, `lib/live.ts`). A page whose
//! live connection is down (refused when an address holds too many, offline, a proxy that cuts
//! streams) asks for the counter itself now and then while it is shown, until the channel is back.
import type { QueryClient } from "@tanstack/react-query";

/** The counter's query (`website-builder`'s ProgressBar reads it; `lib/live.ts` revalidates it). */
export const COUNTER_KEY = ["paid-orders-to-products-quantity"] as const;

/** How often a shown page without a live connection asks for the counter. */
export const COUNTER_POLL_MS = 15_000;

/** What the fallback needs to know: is the live channel open, is the page shown. */
export interface CounterFallback {
  connected: () => boolean;
  visible?: () => boolean;
}

/** Refetches the counters on the page every `every` ms while the live channel is down and the
 * page is shown. Returns the stop. */
export function followCounterWithoutLive(qc: QueryClient, { connected, visible = () => document.visibilityState === "visible" }: CounterFallback, every = COUNTER_POLL_MS): () => void {
  const timer = setInterval(() => {
    if (!connected() && visible()) void qc.invalidateQueries({ queryKey: COUNTER_KEY });
  }, every);
  return () => clearInterval(timer);
}
