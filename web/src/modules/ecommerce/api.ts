import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "@/api/client";
import type { components } from "@/api/schema";
import { formatPrice, type Price } from "@/site/content";
import { AUTH, meKey, useMe, type Subject } from "@/lib/session";
import type { TFunction } from "@/i18n";

type Schemas = components["schemas"];

/** A currency as the server sends it with prices (every field). */
export type Currency = Price["currency"];

/**
 * An order with its lines (product, total per currency), currency, totals and checkout total.
 * `number` is the short sequential number people read (`№ 1042`; null on orders older than it).
 */
export type Order = Schemas["EcommerceOrderView"];

/** One of the buyer's orders (`subjectOrder`): the order with its status history (when, from, to),
 * its payments (an open one's page to pay on) and its receipt once paid. */
export type OwnerOrder = Schemas["EcommerceOwnerOrder"];

/** One of an order's invoices as its buyer sees it. */
export type OrderPayment = OwnerOrder["payments"][number];

export type OrderStatus = Order["status"];

export type Line = Order["ordersToProducts"][number];

/** A currency as orders, lines and cart totals carry it (only `id` is sure). */
export type CurrencyCard = NonNullable<Order["billingModuleCurrency"]>;

/** An order for administrators: the view, payment intents, invoices, status history, next statuses. */
export type OrderDetails = Schemas["EcommerceOrderDetails"];

export type StatusChange = Schemas["EcommerceOrderStatusChange"];

/** What checkout and buy-now answer: the invoices to pay and the orders checked out. */
export type CheckoutResult = Schemas["EcommerceCheckoutResult"];

/** An invoice to pay (open `paymentUrl`); `currency` is the currency's slug. */
export type Invoice = CheckoutResult["billingModule"]["invoices"][number];

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

/** Adds `quantity` of a product to the cart, priced in `currency` (its id; the product's default when absent). */
export function addToCart(subject: string, productId: string, quantity = 1, currency?: string): Promise<Order> {
  return api.post(`${BASE}/orders`, { params: subjectPath(subject), body: { productId, quantity, ...(currency ? { billingModule: { currency: { id: currency } } } : {}) } });
}

export function listOrders(subject: string, type: "cart" | "history" | "all" = "cart"): Promise<Order[]> {
  return api.get(`${BASE}/orders`, { params: { ...subjectPath(subject), query: { type } } });
}

export function getOrder(subject: string, id: string): Promise<OwnerOrder> {
  return api.get(ORDER, { params: { path: { id: subject, orderId: id } } });
}

/** The query key of one of the buyer's orders. */
export const orderKey = (subject: string | undefined, id: string) => [...ordersKey, "one", subject, id] as const;

export function updateLine(subject: string, order: string, line: string, quantity: number): Promise<Order> {
  return api.patch(ORDER, { params: { path: { id: subject, orderId: order } }, body: { ordersToProducts: [{ id: line, quantity }] } });
}

export function deleteOrder(subject: string, order: string) {
  return api.delete(ORDER, { params: { path: { id: subject, orderId: order } } });
}

/** Checks out cart orders (all open ones when `ecommerceModule.orders` is absent). */
export type CheckoutBody = Schemas["SubjectCheckoutBody"];

/** Buys one product now (in `billingModule.currency`, else the product's default). */
export type BuyNowBody = Schemas["SubjectBuyNowBody"];

export function checkout(subject: string, body: CheckoutBody) {
  return api.post(`${BASE}/orders/checkout`, { params: subjectPath(subject), body });
}

export function buyNow(subject: string, product: string, body: BuyNowBody) {
  return api.post(`${BASE}/products/{productId}/checkout`, { params: { path: { id: subject, productId: product } }, body });
}

// The payment providers are billing's (below this module): named here for the shop's screens.
export { accepts, needsEmail, type ProviderOffer, useProviders } from "@/modules/billing/providers";

/** The open cart in one currency: its orders and their total (computed by the server). */
export type CartGroup = Schemas["EcommerceCartGroup"];

/** The visitor's open cart, per currency (empty without a session). */
export function useCart() {
  const me = useMe();
  const id = me.data?.id;
  return useQuery({
    queryKey: [...cartKey, id],
    queryFn: (): Promise<CartGroup[]> => api.get(`${BASE}/orders/total`, { params: subjectPath(id as string) }),
    enabled: !!id,
  });
}

/** Where the browser goes after a checkout: the first invoice's payment page. */
export function paymentTarget(r: CheckoutResult): string | null {
  return r.billingModule.invoices[0]?.paymentUrl || null;
}

/** An amount in a currency, as prices are shown everywhere ("—" when unknown). */
export function money(amount: string | null | undefined, currency: CurrencyCard | null | undefined, lang: string): string {
  return amount == null || !currency ? "—" : formatPrice({ amount, currency }, lang);
}

/** Statuses of an order whose payment went through (DOMAIN §5.2: approving and what follows). */
const PAID: ReadonlySet<OrderStatus> = new Set(["approving", "packaging", "delivering", "delivered"]);

/** Where a payment stands for the buyer: still being confirmed, paid, failed (canceled), or not
 * started (the order went back to the cart). */
export type PaymentState = "pending" | "paid" | "failed" | "open";

export function paymentState(status: OrderStatus): PaymentState {
  if (status === "paying") return "pending";
  if (status === "canceled") return "failed";
  if (PAID.has(status)) return "paid";
  return "open";
}

/** How a person names an order: `Order № 1042`, or "Your order" where the server gives no number (never its id). */
export function orderTitle(order: { number?: number | null }, t: TFunction): string {
  return typeof order.number === "number" ? t("shop.orderNumber", { number: order.number }) : t("shop.yourOrder");
}

/** The page of one of the buyer's orders (the order mails link there too). */
export function orderPath(id: string): string {
  return `/ecommerce/orders/${id}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Is `s` an order id (a UUID)? Anything else in an order URL is not looked up. */
export function isOrderId(s: string): boolean {
  return UUID.test(s);
}
