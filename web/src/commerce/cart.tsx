import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { isLanguage, useTranslation } from "@/i18n";
import { useParams, useSearchParams } from "react-router";
import { toast } from "sonner";
import { AuthGate, GateSkeleton } from "@/modules/rbac/gate";
import { useMe } from "@/modules/rbac/session";
import { Dialog, DialogContent, DialogTrigger } from "@/ui/dialog";
import { trackEvent } from "@/lib/analytics";
import { errorMessage } from "@/lib/form-errors";
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
  ordersKey,
  paymentTarget,
  updateLine,
  useCart,
  useProviders,
  type Invoice,
  type Order,
} from "./api";

function titleOf(o: Order["ordersToProducts"][number], lang: string): string {
  const t = o.product?.title ?? {};
  return t[lang] || t.en || t.ru || o.product?.slug || "";
}

/** 'Add to cart' ('Adding...' while the request runs); a guest gets an anonymous cart. */
export function AddToCart({ productId, className }: { productId: string; className?: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const me = useMe();
  const add = useMutation({
    mutationFn: async () => addToCart(await ensureSubject(qc, me.data), productId, 1),
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
  const { t } = useTranslation();
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

export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <span data-testid="order-status" data-status={status} className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-semibold text-emerald-900">
      {t(`commerce.status.${status}`, { defaultValue: status })}
    </span>
  );
}

/** 'Order #{id}': lines with quantities, the total, the status. */
export function OrderCard({ order, lang, subject, editable }: { order: Order; lang: string; subject?: string; editable?: boolean }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteOrder(subject as string, order.id),
    onSuccess: () => {
      toast.success(t("commerce.deleted"));
      void qc.invalidateQueries({ queryKey: cartKey });
    },
    onError: (e) => toast.error(errorMessage(e, t, t("commerce.failed"))),
  });
  return (
    <article className="rounded-xl border border-neutral-200 p-4" data-testid="order-card">
      <header className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{t("commerce.order", { id: order.id })}</h3>
        <StatusBadge status={order.status} />
      </header>
      <ul className="mt-3 space-y-2">
        {order.ordersToProducts.map((l) => (
          <li key={l.id} className="flex flex-wrap items-center justify-between gap-2">
            <span className="font-medium">{titleOf(l, lang)}</span>
            {editable && subject ? <QuantityStepper subject={subject} order={order} line={l} /> : <span>× {l.quantity}</span>}
          </li>
        ))}
      </ul>
      <footer className="mt-3 flex items-center justify-between">
        <span className="font-semibold">{money(order.checkoutTotal, order.billingModuleCurrency, lang)}</span>
        {editable && subject && order.status === "new" ? (
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending} className="text-sm font-medium text-red-700 hover:underline">
            {t("commerce.delete")}
          </button>
        ) : null}
      </footer>
    </article>
  );
}

function PaymentLinks({ invoices }: { invoices: Invoice[] }) {
  const { t } = useTranslation();
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

/** The checkout form: provider, email for the invoice, 'Checkout'. */
function CheckoutForm({ subject, orders, lang }: { subject: string; orders: Order[]; lang: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const providers = useProviders();
  const id = useId();
  const [provider, setProvider] = useState("");
  const [email, setEmail] = useState("");
  const [links, setLinks] = useState<Invoice[] | null>(null);
  // Only the providers that take the cart's currency are offered.
  const currency = orders[0]?.billingModuleCurrency?.slug;
  const offered = (providers.data ?? []).filter((p) => accepts(p, currency)).map((p) => p.provider);
  const chosen = offered.includes(provider) ? provider : (offered[0] ?? "");
  const go = useMutation({
    mutationFn: () => checkout(subject, { provider: chosen, email: email.trim() || undefined, language: isLanguage(lang) ? lang : undefined, ecommerceModule: { orders: orders.map((o) => ({ id: o.id })) } }),
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
      toast.error(errorMessage(e, t, t("commerce.failed")));
    },
  });
  if (links) return <PaymentLinks invoices={links} />;
  return (
    <form
      className="mt-4 space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        trackEvent("checkout-started");
        go.mutate();
      }}
    >
      <div>
        <label htmlFor={`${id}-p`} className="text-sm font-semibold">
          {t("commerce.provider")}
        </label>
        <select id={`${id}-p`} data-testid="provider" value={chosen} onChange={(e) => setProvider(e.target.value)} className="mt-1 h-10 w-full rounded-md border border-neutral-300 px-2">
          {offered.map((p) => (
            <option key={p} value={p}>
              {t(`commerce.providers.${p}`, { defaultValue: p })}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-e`} className="text-sm font-semibold">
          {t("commerce.email")}
        </label>
        <input id={`${id}-e`} data-testid="checkout-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} className="mt-1 h-10 w-full rounded-md border border-neutral-300 px-2" />
      </div>
      <button type="submit" data-testid="checkout" disabled={go.isPending || !chosen || orders.length === 0} className="h-11 w-full rounded-full bg-emerald-800 font-semibold text-white disabled:opacity-60">
        {go.isPending ? t("commerce.loading") : t("commerce.checkout")}
      </button>
    </form>
  );
}

/** The navbar's cart: a badge with the quantity and a sheet with the cart and the checkout. */
export function CartButton() {
  const { t } = useTranslation();
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
              {count}
            </span>
          ) : null}
        </button>
      </DialogTrigger>
      <DialogContent title={t("commerce.cart")} className="left-auto right-0 top-0 h-full max-h-none w-[400px] max-w-full translate-x-0 translate-y-0 rounded-none sm:w-[540px]">
        {open.length === 0 ? (
          <p className="text-neutral-600">{t("commerce.empty")}</p>
        ) : (
          <div className="space-y-3">
            {open.map((o) => (
              <OrderCard key={o.id} order={o} lang={lang} subject={me.data?.id} editable />
            ))}
            <div className="rounded-xl bg-emerald-50 p-3" data-testid="cart-totals">
              <p className="text-sm font-semibold">{t("site.total")}</p>
              {groups.map((g) => (
                <p key={g.billingModuleCurrency.id} className="text-lg font-bold">
                  {money(g.total, g.billingModuleCurrency, lang)}
                </p>
              ))}
            </div>
            <CheckoutForm subject={me.data.id} orders={open} lang={lang} />
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}

/** After the payment page: the orders' real status, refreshed until the payment is known. */
export function CheckoutReturnScreen({ canceled }: { canceled?: boolean }) {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const [params] = useSearchParams();
  const me = useMe();
  const ids = (params.get("orders") ?? "").split(",").filter((s) => /^[0-9a-f-]{36}$/i.test(s)).slice(0, 20);
  const subject = me.data?.id;
  const q = useQuery({
    queryKey: [...ordersKey, "return", subject, ids.join(",")],
    queryFn: () => Promise.all(ids.map((id) => getOrder(subject as string, id))),
    enabled: !!subject && ids.length > 0,
    refetchInterval: (query) => ((query.state.data ?? []).some((o) => o.status === "paying") ? 2000 : false),
  });
  return (
    <section className="mx-auto max-w-2xl px-4 py-16" data-testid="checkout-return">
      <h1 className="text-3xl font-bold">{canceled ? t("commerce.canceledTitle") : t("commerce.successTitle")}</h1>
      <p className="mt-2 text-neutral-600">{canceled ? t("commerce.canceledText") : t("commerce.successText")}</p>
      <div className="mt-6 space-y-3">
        {(q.data ?? []).map((o) => (
          <OrderCard key={o.id} order={o} lang={lang} />
        ))}
      </div>
    </section>
  );
}

/** 'My orders': every order of the signed-in subject, newest first. */
export function MyOrdersScreen() {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const me = useMe();
  const subject = me.data?.id;
  const q = useQuery({ queryKey: [...ordersKey, "all", subject], queryFn: () => listOrders(subject as string, "all"), enabled: !!subject });
  const none = <p className="mt-4 text-neutral-600">{t("commerce.noOrders")}</p>;
  return (
    <section className="mx-auto max-w-3xl px-4 py-16" data-testid="my-orders">
      <h1 className="text-3xl font-bold">{t("commerce.myOrders")}</h1>
      <AuthGate skeleton={<GateSkeleton className="px-0" />} fallback={none}>
        {q.data && q.data.length === 0 ? none : null}
        <div className="mt-6 space-y-3">
          {(q.data ?? []).map((o) => (
            <OrderCard key={o.id} order={o} lang={lang} subject={subject} editable={o.status === "new"} />
          ))}
        </div>
      </AuthGate>
    </section>
  );
}
