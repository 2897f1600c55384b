//! Following a payment to its end. The server tells the buyer's open pages when their order
//! changes (`revalidate` {entities: ["ecommerce.order"]} on the live channel, which refetches every
//! `commerce` query, `lib/live.ts`); a change made before the page's connection opened is not
//! replayed to it, so a page waiting for a payment also asks again — quickly at first (a webhook
//! usually lands within seconds), then slower — and stops once nothing is being paid.
import { paymentState, type Order } from "./api";

/** Waits between checks, in ms, by the number of answers so far; the last one repeats. */
export const FOLLOW_BACKOFF = [1000, 1000, 1500, 2000, 3000, 5000, 8000, 13_000, 20_000, 30_000];

/** A payment still pending this long after the page opened is said to take longer than usual. */
export const SLOW_AFTER_MS = 90_000;

export function followDelay(answers: number): number {
  return FOLLOW_BACKOFF[Math.min(Math.max(answers, 0), FOLLOW_BACKOFF.length - 1)] ?? 30_000;
}

/** Is any of `orders` still waiting for its payment? */
export function anyPending(orders: readonly Pick<Order, "status">[]): boolean {
  return orders.some((o) => paymentState(o.status) === "pending");
}

/** A `refetchInterval` for a query of one order or a list: the next wait while a payment is
 * pending, false once none is (or before the first answer: the query is loading anyway). */
export function followInterval(query: { state: { data?: Order | Order[]; dataUpdateCount: number } }): number | false {
  const data = query.state.data;
  if (!data) return false;
  const orders: Order[] = Array.isArray(data) ? data : [data];
  return anyPending(orders) ? followDelay(query.state.dataUpdateCount) : false;
}
