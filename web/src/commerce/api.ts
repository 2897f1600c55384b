import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, looseBody, loosely, type Result } from "@/api/client";
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

/** Kept here: the document describes an order only as `{type: object}` with a description. */
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

/** Kept here: the document's SubjectCheckoutResult / SubjectBuyNowResult give invoices as bare `{type: object}` items. */
export interface CheckoutResult {
  billingModule: { invoices: Invoice[] };
  ecommerceModule: { orders: string[] };
}

export const cartKey = ["commerce", "cart"] as const;
export const ordersKey = ["commerce", "orders"] as const;

const BASE = "/api/rbac/subjects/{id}/ecommerce-module";
const ORDER = `${BASE}/orders/{orderId}` as const;
const subjectPath = (id: string) => ({ path: { id } });

/** The visitor's subject: the signed-in one, or a new anonymous one (a guest cart). */
export async function ensureSubject(qc: ReturnType<typeof useQueryClient>, me: Subject | null | undefined): Promise<string> {
  if (me?.id) return me.id;
  await api.post(`${AUTH}/init`, { noRefresh: true });
  const fresh: Subject | null = await api.get(`${AUTH}/me`, { noRefresh: true });
  qc.setQueryData(meKey, fresh);
  if (!fresh?.id) throw new Error("no session");
  return fresh.id;
}

export function addToCart(subject: string, productId: string, quantity = 1) {
  return api.post(`${BASE}/orders`, { params: subjectPath(subject), body: { productId, quantity } }).then(loosely<Order>);
}

export function listOrders(subject: string, type: "cart" | "history" | "all" = "cart") {
  return api.get(`${BASE}/orders`, { params: { ...subjectPath(subject), query: { type } } }).then(loosely<Order[]>);
}

export function getOrder(subject: string, id: string) {
  return api.get(ORDER, { params: { path: { id: subject, orderId: id } } }).then(loosely<Order>);
}

export function updateLine(subject: string, order: string, line: string, quantity: number) {
  return api.patch(ORDER, { params: { path: { id: subject, orderId: order } }, body: { ordersToProducts: [{ id: line, quantity }] } }).then(loosely<Order>);
}

export function deleteOrder(subject: string, order: string) {
  return api.delete(ORDER, { params: { path: { id: subject, orderId: order } } });
}

/**
 * Kept here: in the document, SubjectCheckoutBody's `ecommerceModule` and SubjectBuyNowBody's
 * `billingModule` are bare `{type: object}`, and SubjectCheckoutBody has no `billingModule`.
 */
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
  return api.post(`${BASE}/orders/checkout`, { params: subjectPath(subject), body: looseBody(body) }).then(loosely<CheckoutResult>);
}

export function buyNow(subject: string, product: string, body: CheckoutBody) {
  return api
    .post(`${BASE}/products/{productId}/checkout`, { params: { path: { id: subject, productId: product } }, body: looseBody(body) })
    .then(loosely<CheckoutResult>);
}

/** An enabled payment provider and the currencies it takes (empty: any). */
export type ProviderOffer = Result<"get", "/api/billing/providers">[number];

/** The payment providers the server allows, in its order. */
export function useProviders() {
  return useQuery({ queryKey: ["commerce", "providers"], queryFn: () => api.get("/api/billing/providers"), staleTime: 5 * 60_000 });
}

/** Does `offer` take payments in `currency` (a slug)? */
export function accepts(offer: ProviderOffer, currency: string | undefined): boolean {
  return offer.currencies.length === 0 || (!!currency && offer.currencies.includes(currency.toLowerCase()));
}

/**
 * The open cart in one currency: its orders and their total (computed by the server). Kept here:
 * the document gives subjectCartTotal's items as bare `{type: object}`.
 */
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
    queryFn: () => api.get(`${BASE}/orders/total`, { params: subjectPath(id as string) }).then(loosely<CartGroup[]>),
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
