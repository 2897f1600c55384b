import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { isLanguage } from "@/i18n";
import { Link, useParams, useSearchParams } from "react-router";
import { toast } from "sonner";
import { X } from "lucide-react";
import { AuthGate, GateSkeleton } from "@/site/gate";
import { useMe } from "@/lib/session";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/ui/dialog";
import { trackEvent } from "@/lib/analytics";
import { errorMessage } from "@/lib/form-errors";
import { siteLink } from "@/site/link";
import { cn } from "@/ui/cn";
import {
  accepts,
  addToCart,
  cartKey,
  checkout,
  deleteOrder,
  ensureSubject,
  getOrder,
  listOrders,
  money,
  needsEmail,
  orderPath,
  ordersKey,
  orderTitle,
  paymentState,
  paymentTarget,
  updateLine,
  useCart,
  useProviders,
  type Invoice,
  type Order,
  type PaymentState,
} from "./api";
import { formatDateTime } from "./dates";
import { emailRefused, ReceiptEmailField, useReceiptForm } from "./receipt-email";
import { anyPending, followInterval, SLOW_AFTER_MS } from "./follow";
import { useScreenTitle } from "@/site/screen-title";
import { SignInPrompt } from "./screen";
import { useShopT } from "./i18n";

export function lineTitle(o: Order["ordersToProducts"][number], lang: string): string {
  const t = o.product?.title ?? {};
  return t[lang] || t.en || t.ru || o.product?.adminTitle || "";
}

/** 'Add to cart' ('Adding...' while the request runs); a guest gets an anonymous cart. The
 * quantity and the currency (its id) default to 1 and the product's default currency. */
export function AddToCart({ productId, quantity = 1, currency, className }: { productId: string; quantity?: number; currency?: string; className?: string }) {
  const t = useShopT();
  const qc = useQueryClient();
  const me = useMe();
  const add = useMutation({
    mutationFn: async () => addToCart(await ensureSubject(qc, me.data), productId, quantity, currency),
    onSuccess: () => {
      toast.success(t("commerce.added"));
      void qc.invalidateQueries({ queryKey: cartKey });
    },
    onError: (e) => toast.error(errorMessage(e, t, t("commerce.failed"))),
  });
  return (
    <button type="button" data-testid="add-to-cart" disabled={add.isPending} onClick={() => add.mutate()} className={cn("inline-flex h-11 items-center justify-center rounded-full bg-emerald-800 px-6 font-semibold text-white hover:bg-emerald-700 disabled:opacity-60", className)}>
      {add.isPending ? t("commerce.adding") : t("commerce.addToCart")}
    </button>
  );
}

/** A quantity stepper that saves 100 ms after the last change ('Updated successfully'). */
function QuantityStepper({ subject, order, line }: { subject: string; order: Order; line: Order["ordersToProducts"][number] }) {
  const t = useShopT();
  const qc = useQueryClient();
  const id = useId();
  const [value, setValue] = useState(line.quantity);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const save = useMutation({
    mutationFn: (q: number) => updateLine(subject, order.id, line.id, q),
    onSuccess: () => {
      toast.success(t("commerce.updated"));
      void qc.invalidateQueries({ queryKey: cartKey });
    },
    onError: (e) => toast.error(errorMessage(e, t, t("commerce.failed"))),
  });
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const change = (q: number) => {
    const n = Math.max(1, Math.min(10_000, Math.floor(q) || 1));
    setValue(n);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => save.mutate(n), 100);
  };
  const editable = order.status === "new";
  return (
    <div className="flex items-center gap-1">
      <button type="button" aria-label={t("site.less")} disabled={!editable || value <= 1} onClick={() => change(value - 1)} className="h-8 w-8 rounded-full border border-emerald-800 font-bold disabled:opacity-40">
        −
      </button>
      <label htmlFor={id} className="sr-only">
        {t("commerce.quantity")}
      </label>
      <input id={id} data-testid="cart-quantity" type="number" min={1} max={10000} value={value} disabled={!editable} onChange={(e) => change(Number(e.target.value))} className="h-8 w-16 rounded-md border border-neutral-300 text-center" />
      <button type="button" aria-label={t("site.moreTrees")} disabled={!editable} onClick={() => change(value + 1)} className="h-8 w-8 rounded-full border border-emerald-800 font-bold disabled:opacity-40">
        +
      </button>
    </div>
  );
}

const BADGE: Record<PaymentState, string> = {
  pending: "bg-amber-100 text-amber-950",
  paid: "bg-emerald-100 text-emerald-950",
  failed: "bg-red-100 text-red-950",
  open: "bg-neutral-100 text-neutral-900",
};

export function StatusBadge({ status }: { status: string }) {
  const t = useShopT();
  return (
    <span data-testid="order-status" data-status={status} className={cn("whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-semibold", BADGE[paymentState(status as Order["status"])])}>
      {t(`commerce.status.${status}`, { defaultValue: status })}
    </span>
  );
}

/**
 * An order: its number (a link to its page), when it was placed, its status, the lines with
 * their quantities and the total. In the cart (`editable`) the lines have steppers and the
 * order a Delete; a cart order has no number to show yet, so it has no heading there.
 */
export function OrderCard({ order, lang, subject, editable, headingLevel = 3 }: { order: Order; lang: string; subject?: string; editable?: boolean; headingLevel?: 2 | 3 }) {
  const t = useShopT();
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteOrder(subject as string, order.id),
    onSuccess: () => {
      toast.success(t("commerce.deleted"));
      void qc.invalidateQueries({ queryKey: cartKey });
    },
    onError: (e) => toast.error(errorMessage(e, t, t("commerce.failed"))),
  });
  const H = headingLevel === 2 ? "h2" : "h3";
  const inCart = editable && order.status === "new";
  // In the cart every order is 'In the cart' and has no number yet: nothing to head it with.
  const header = inCart && typeof order.number !== "number" ? null : (
    <header className="flex flex-wrap items-start justify-between gap-2">
      <div className="min-w-0">
        <H className="text-base font-semibold" data-testid="order-title">
          <Link to={siteLink(orderPath(order.id), lang)} className="underline decoration-emerald-300 underline-offset-4 hover:decoration-emerald-800">
            {orderTitle(order, t)}
          </Link>
        </H>
        <p className="text-sm text-neutral-600" data-testid="order-date">
          <time dateTime={order.createdAt}>{formatDateTime(order.createdAt, lang)}</time>
        </p>
      </div>
      {inCart ? null : <StatusBadge status={order.status} />}
    </header>
  );
  return (
    <article className="rounded-xl border border-neutral-200 bg-white p-4" data-testid="order-card" data-order={order.id}>
      {header}
      <ul className={cn("space-y-2", header && "mt-3")}>
        {order.ordersToProducts.map((l) => (
          <li key={l.id} className="flex flex-wrap items-center justify-between gap-2">
            <span className="font-medium">{lineTitle(l, lang)}</span>
            {inCart && subject ? <QuantityStepper subject={subject} order={order} line={l} /> : <span>× {l.quantity}</span>}
          </li>
        ))}
      </ul>
      <footer className="mt-3 flex items-center justify-between">
        <span className="font-semibold">{money(order.checkoutTotal, order.billingModuleCurrency, lang)}</span>
        {inCart && subject ? (
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending} className="text-sm font-medium text-red-700 hover:underline">
            {t("commerce.delete")}
          </button>
        ) : null}
      </footer>
    </article>
  );
}

function PaymentLinks({ invoices }: { invoices: Invoice[] }) {
  const t = useShopT();
  return (
    <div className="mt-4 flex flex-col gap-2" data-testid="payment-links">
      {invoices.map((i) => (
        <a key={i.id} href={i.paymentUrl ?? undefined} target="_blank" rel="noopener noreferrer" className="inline-flex h-10 items-center justify-center rounded-full bg-emerald-800 px-4 font-semibold text-white">
          {t("commerce.paymentLink")} · {i.amount} {i.currency.toUpperCase()}
        </a>
      ))}
    </div>
  );
}

/** The checkout of the cart's orders in one currency: a provider that takes it, the email for the
 * invoice (required where the provider mails one), 'Checkout'. */
function CheckoutForm({ subject, orders, currency, lang }: { subject: string; orders: Order[]; currency: string; lang: string }) {
  const t = useShopT();
  const qc = useQueryClient();
  const providers = useProviders();
  const id = useId();
  const [provider, setProvider] = useState("");
  const [links, setLinks] = useState<Invoice[] | null>(null);
  const offers = (providers.data ?? []).filter((p) => accepts(p, currency));
  const offered = offers.map((p) => p.provider);
  const chosen = offered.includes(provider) ? provider : (offered[0] ?? "");
  const emailRequired = needsEmail(offers.find((o) => o.provider === chosen));
  const form = useReceiptForm(t, emailRequired);
  const go = useMutation({
    mutationFn: (email: string) => checkout(subject, { provider: chosen, email: email.trim() || undefined, language: isLanguage(lang) ? lang : undefined, ecommerceModule: { orders: orders.map((o) => ({ id: o.id })) } }),
    onSuccess: (r) => {
      void qc.invalidateQueries({ queryKey: cartKey });
      if (r.billingModule.invoices.length > 1) setLinks(r.billingModule.invoices);
      else {
        const target = paymentTarget(r);
        if (target) window.location.assign(target);
      }
    },
    onError: (e) => {
      // A payment that did not start gives the orders back to the cart: show them as they are.
      void qc.invalidateQueries({ queryKey: cartKey });
      if (!emailRefused(e, form, t)) toast.error(errorMessage(e, t, t("commerce.failed")));
    },
  });
  if (links) return <PaymentLinks invoices={links} />;
  return (
    <form
      noValidate
      className="mt-4 space-y-3"
      onSubmit={form.handleSubmit((v) => {
        trackEvent("checkout-started");
        go.mutate(v.email);
      })}
    >
      <div>
        <label htmlFor={`${id}-p`} className="text-sm font-semibold">
          {t("commerce.provider")}
        </label>
        <select id={`${id}-p`} data-testid="provider" value={chosen} onChange={(e) => setProvider(e.target.value)} className="mt-1 h-10 w-full rounded-md border border-neutral-300 bg-white px-2">
          {offered.map((p) => (
            <option key={p} value={p}>
              {t(`commerce.providers.${p}`, { defaultValue: p })}
            </option>
          ))}
        </select>
      </div>
      <ReceiptEmailField form={form} id={`${id}-e`} testId="checkout-email" required={emailRequired} label={t("commerce.email")} help={t(emailRequired ? "shop.invoiceHelp" : "shop.invoiceHelpOptional")} />
      <button type="submit" data-testid="checkout" disabled={go.isPending || !chosen || orders.length === 0} className="h-11 w-full rounded-full bg-emerald-800 font-semibold text-white disabled:opacity-60">
        {go.isPending ? t("commerce.loading") : t("commerce.checkout")}
      </button>
    </form>
  );
}

/** The navbar's cart: a badge with the quantity and a sheet ('Cart', a close button, Escape
 * closes it) with the cart and the checkout. */
export function CartButton() {
  const t = useShopT();
  const { lang = "ru" } = useParams();
  const me = useMe();
  const cart = useCart();
  const groups = cart.data ?? [];
  const open = groups.flatMap((g) => g.orders);
  const count = open.reduce((n, o) => n + o.ordersToProducts.reduce((m, l) => m + l.quantity, 0), 0);
  if (!me.data?.id) return null;
  return (
    <Dialog>
      <DialogTrigger asChild>
        <button type="button" data-testid="cart-button" className="relative inline-flex h-10 items-center gap-2 rounded-full border border-emerald-800 px-4 text-sm font-semibold text-emerald-900">
          {t("commerce.cart")}
          {count > 0 ? (
            <span data-testid="cart-badge" className="rounded-full bg-emerald-800 px-2 text-xs text-white">
              <span className="sr-only">{t("shop.itemsInCart")} </span>
              {count}
            </span>
          ) : null}
        </button>
      </DialogTrigger>
      <DialogContent title={t("commerce.cart")} data-testid="cart-sheet" className="left-auto right-0 top-0 h-full max-h-none w-[400px] max-w-full translate-x-0 translate-y-0 rounded-none sm:w-[540px]">
        <DialogClose aria-label={t("shop.closeCart")} data-testid="cart-close" className="absolute right-3 top-3 inline-flex h-10 w-10 items-center justify-center rounded-full text-neutral-700 hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-emerald-800">
          <X aria-hidden className="h-5 w-5" />
        </DialogClose>
        {open.length === 0 ? (
          <p className="text-neutral-600">{t("commerce.empty")}</p>
        ) : (
          // One checkout per currency: a provider takes one currency, and an invoice is in one.
          groups.map((g) => (
            <section key={g.billingModuleCurrency.id} className="space-y-3 pb-6" data-testid="cart-group">
              {groups.length > 1 ? <h3 className="font-semibold">{t("shop.inCurrency", { currency: g.billingModuleCurrency.symbol || g.billingModuleCurrency.slug.toUpperCase() })}</h3> : null}
              {g.orders.map((o) => (
                <OrderCard key={o.id} order={o} lang={lang} subject={me.data?.id} editable />
              ))}
              <div className="rounded-xl bg-emerald-50 p-3" data-testid="cart-totals">
                <p className="text-sm font-semibold">{t("site.total")}</p>
                <p className="text-lg font-bold">{money(g.total, g.billingModuleCurrency, lang)}</p>
              </div>
              {me.data ? <CheckoutForm subject={me.data.id} orders={g.orders} currency={g.billingModuleCurrency.slug} lang={lang} /> : null}
            </section>
          ))
        )}
        <p className="mt-6 text-sm">
          <Link to={siteLink("/ecommerce/orders", lang)} className="font-medium text-emerald-900 underline underline-offset-4">
            {t("commerce.myOrders")}
          </Link>
        </p>
      </DialogContent>
    </Dialog>
  );
}

/** Where the payments of `orders` stand together: pending while any is, paid when all are. */
export function overallState(orders: readonly Pick<Order, "status">[]): PaymentState | null {
  if (orders.length === 0) return null;
  const states = orders.map((o) => paymentState(o.status));
  if (states.includes("pending")) return "pending";
  if (states.every((s) => s === "paid")) return "paid";
  if (states.includes("failed")) return "failed";
  return states.includes("paid") ? "paid" : "open";
}

function Spinner() {
  return <span aria-hidden className="inline-block h-4 w-4 animate-spin rounded-full border-2 border-emerald-800 border-t-transparent" />;
}

/** The sentence under the title of the page after a payment: what we know of it right now. */
function PaymentNote({ state, slow }: { state: PaymentState | null; slow: boolean }) {
  const t = useShopT();
  if (state === null || state === "pending") {
    return (
      <span className="mt-2 flex items-center gap-2 text-neutral-700" data-testid="payment-note" data-state="pending">
        <Spinner />
        {slow ? t("shop.follow.slow") : t("shop.follow.pending")}
      </span>
    );
  }
  return (
    <span className={cn("mt-2 block font-medium", state === "paid" ? "text-emerald-900" : state === "failed" ? "text-red-800" : "text-neutral-800")} data-testid="payment-note" data-state={state}>
      {t(`shop.follow.${state}`)}
    </span>
  );
}

/** After the payment page: the orders followed by themselves until their payments end, and said so. */
export function CheckoutReturnScreen({ canceled }: { canceled?: boolean }) {
  const t = useShopT();
  const { lang = "ru" } = useParams();
  const [params] = useSearchParams();
  const me = useMe();
  const ids = (params.get("orders") ?? "").split(",").filter((s) => /^[0-9a-f-]{36}$/i.test(s)).slice(0, 20);
  const subject = me.data?.id;
  const q = useQuery({
    queryKey: [...ordersKey, "return", subject, ids.join(",")],
    queryFn: () => Promise.all(ids.map((id) => getOrder(subject as string, id))),
    enabled: !!subject && ids.length > 0,
    refetchInterval: followInterval,
  });
  const orders = q.data ?? [];
  const state = q.data ? overallState(orders) : null;
  // Past the backoff's quick part (about a minute and a half), the wait is said to be long.
  const [since] = useState(() => Date.now());
  const slow = anyPending(orders) && q.dataUpdatedAt - since > SLOW_AFTER_MS;
  const title = canceled ? t("commerce.canceledTitle") : state === "failed" ? t("shop.failedTitle") : state === "open" ? t("shop.notStartedTitle") : t("commerce.successTitle");
  useScreenTitle(title);
  return (
    <section className="mx-auto max-w-2xl px-4 py-16" data-testid="checkout-return" data-state={state ?? "loading"}>
      <h1 className="text-3xl font-bold">{title}</h1>
      <output className="block" aria-live="polite">
        {canceled ? <span className="mt-2 block text-neutral-700">{t("commerce.canceledText")}</span> : subject || me.isPending ? <PaymentNote state={state} slow={slow} /> : null}
      </output>
      {!me.isPending && !subject ? <SignInPrompt className="mt-6" text={t("shop.signInToFollow")} /> : null}
      <div className="mt-6 space-y-3">
        {orders.map((o) => (
          <OrderCard key={o.id} order={o} lang={lang} />
        ))}
      </div>
      {subject ? (
        <p className="mt-6">
          <Link to={siteLink("/ecommerce/orders", lang)} className="font-medium text-emerald-900 underline underline-offset-4">
            {t("commerce.myOrders")}
          </Link>
        </p>
      ) : null}
    </section>
  );
}

/** The signed-in (or guest) visitor's placed orders (the cart has its sheet), newest first, each with
 * its number, date and status. */
export function OrdersList({ lang, empty }: { lang: string; empty?: ReactNode }) {
  const t = useShopT();
  const me = useMe();
  const subject = me.data?.id;
  const q = useQuery({ queryKey: [...ordersKey, "history", subject], queryFn: () => listOrders(subject as string, "history"), enabled: !!subject, refetchInterval: followInterval });
  if (q.isPending) return <GateSkeleton className="px-0" />;
  if (q.isError) {
    return (
      <p role="alert" className="mt-4 text-red-800">
        {errorMessage(q.error, t)}
      </p>
    );
  }
  const orders = [...q.data].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (orders.length === 0) return <>{empty ?? <p className="mt-4 text-neutral-600">{t("commerce.noOrders")}</p>}</>;
  return (
    <ol className="mt-6 space-y-3" data-testid="orders-list">
      {orders.map((o) => (
        <li key={o.id}>
          <OrderCard order={o} lang={lang} />
        </li>
      ))}
    </ol>
  );
}

/** 'My orders': every order of the signed-in subject, newest first. */
export function MyOrdersScreen() {
  const t = useShopT();
  const { lang = "ru" } = useParams();
  useScreenTitle(t("commerce.myOrders"));
  return (
    <section className="mx-auto max-w-3xl px-4 py-16" data-testid="my-orders">
      <h1 className="text-3xl font-bold">{t("commerce.myOrders")}</h1>
      <AuthGate skeleton={<GateSkeleton className="px-0" />} fallback={<SignInPrompt className="mt-4" text={t("shop.signInForOrders")} />}>
        <OrdersList lang={lang} />
      </AuthGate>
    </section>
  );
}
