import { useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "@/api/http";
import { formatPrice, type Price } from "@/lib/content";
import { AUTH, meKey, useMe, type Subject } from "@/account/session";

/** A currency as the server sends it with prices and orders. */
export type Currency = Price["currency"];

export interface Line {
  id: string;
  productId: string;
  quantity: number;
  product: { id: string; slug: string; title: Record<string, string> | null; adminTitle?: string } | null;
  total: { total: string; billingModuleCurrency: Currency }[];
}

export interface StatusChange {
  id: string;
  from: string;
  to: string;
  createdAt: string;
  reason?: string | null;
  override?: boolean;
}

export interface Order {
  id: string;
  status: string;
  type: string;
  createdAt: string;
  comment?: string | null;
  ordersToProducts: Line[];
  billingModuleCurrency: Currency | null;
  checkoutTotal: string | null;
  statusChanges?: StatusChange[];
}

export interface Invoice {
  id: string;
  status: string;
  provider: string;
  amount: string;
  currency: string;
  paymentUrl: string;
}

export interface CheckoutResult {
  billingModule: { invoices: Invoice[] };
  ecommerceModule: { orders: string[] };
}

export const cartKey = ["commerce", "cart"] as const;
export const ordersKey = ["commerce", "orders"] as const;

const base = (subject: string) => `/api/rbac/subjects/${subject}/ecommerce-module`;

/** The visitor's subject: the signed-in one, or a new anonymous one (a guest cart). */
export async function ensureSubject(qc: ReturnType<typeof useQueryClient>, me: Subject | null | undefined): Promise<string> {
  if (me?.id) return me.id;
  await request<unknown>("POST", `${AUTH}/init`, { body: {}, noRefresh: true });
  const fresh = await request<Subject | null>("GET", `${AUTH}/me`, { noRefresh: true });
  qc.setQueryData(meKey, fresh);
  if (!fresh?.id) throw new Error("no session");
  return fresh.id;
}

export function addToCart(subject: string, productId: string, quantity = 1) {
  return request<Order>("POST", `${base(subject)}/orders`, { body: { productId, quantity } });
}

export function listOrders(subject: string, type: "cart" | "history" | "all" = "cart") {
  return request<Order[]>("GET", `${base(subject)}/orders`, { query: { type } });
}

export function getOrder(subject: string, id: string) {
  return request<Order>("GET", `${base(subject)}/orders/${id}`);
}

export function updateLine(subject: string, order: string, line: string, quantity: number) {
  return request<Order>("PATCH", `${base(subject)}/orders/${order}`, { body: { ordersToProducts: [{ id: line, quantity }] } });
}

export function deleteOrder(subject: string, order: string) {
  return request<unknown>("DELETE", `${base(subject)}/orders/${order}`);
}

export interface CheckoutBody {
  provider: string;
  email?: string;
  language: string;
  comment?: string;
  quantity?: number;
  ecommerceModule?: { orders: { id: string }[] };
  billingModule?: { currency: { id: string } };
}

export function checkout(subject: string, body: CheckoutBody) {
  return request<CheckoutResult>("POST", `${base(subject)}/orders/checkout`, { body });
}

export function buyNow(subject: string, product: string, body: CheckoutBody) {
  return request<CheckoutResult>("POST", `${base(subject)}/products/${product}/checkout`, { body });
}

/** An enabled payment provider and the currencies it takes (empty: any). */
export interface ProviderOffer {
  provider: string;
  currencies: string[];
  statusApi: boolean;
}

/** The payment providers the server allows, in its order. */
export function useProviders() {
  return useQuery({ queryKey: ["commerce", "providers"], queryFn: () => request<ProviderOffer[]>("GET", "/api/billing/providers"), staleTime: 5 * 60_000 });
}

/** Does `offer` take payments in `currency` (a slug)? */
export function accepts(offer: ProviderOffer, currency: string | undefined): boolean {
  return offer.currencies.length === 0 || (!!currency && offer.currencies.includes(currency.toLowerCase()));
}

/** The open cart in one currency: its orders and their total (computed by the server). */
export interface CartGroup {
  billingModuleCurrency: Currency;
  total: string;
  orders: Order[];
}

/** The visitor's open cart, per currency (empty without a session). */
export function useCart() {
  const me = useMe();
  const id = me.data?.id;
  return useQuery({
    queryKey: [...cartKey, id],
    queryFn: () => request<CartGroup[]>("GET", `${base(id as string)}/orders/total`),
    enabled: !!id,
  });
}

/** Where the browser goes after a checkout: the first invoice's payment page. */
export function paymentTarget(r: CheckoutResult): string | null {
  return r.billingModule.invoices[0]?.paymentUrl || null;
}

/** An amount in a currency, as prices are shown everywhere ("—" when unknown). */
export function money(amount: string | null | undefined, currency: Currency | null | undefined, lang: string): string {
  return amount == null || !currency ? "—" : formatPrice({ amount, currency }, lang);
}
