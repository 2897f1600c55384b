// The payment providers the server allows, as billing offers them (`GET /api/billing/providers`):
// billing's admin and the shop's checkout read them from here.
import { useQuery } from "@tanstack/react-query";
import { api, type Result } from "@/api/client";

/** An enabled payment provider and the currencies it takes (empty: any). */
export type ProviderOffer = Result<"get", "/api/billing/providers">[number];

/** The payment providers the server allows, in its order. */
export function useProviders() {
  return useQuery({ queryKey: ["billing", "providers"], queryFn: () => api.get("/api/billing/providers"), staleTime: 5 * 60_000 });
}

/** Does `offer` mail a receipt, so that checkout needs the buyer's email? Every real provider does;
 * the demo's dummy one does not. (A server that says so per provider, `needsEmail`, is believed.) */
export function needsEmail(offer: ProviderOffer | undefined): boolean {
  if (!offer) return false;
  const said = (offer as { needsEmail?: unknown }).needsEmail;
  return typeof said === "boolean" ? said : offer.provider !== "dummy";
}

/** Does `offer` take payments in `currency` (a slug)? */
export function accepts(offer: ProviderOffer, currency: string | null | undefined): boolean {
  return offer.currencies.length === 0 || (!!currency && offer.currencies.includes(currency.toLowerCase()));
}
