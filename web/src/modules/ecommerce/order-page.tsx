//! One order's page for its buyer (`/{lang}/ecommerce/orders/{id}`, where the order mails link):
//! its lines and total, where its payment stands (followed until it ends), its status history
//! with dates. Someone else, or a visitor without a session, is told so and offered sign-in.
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useLocation, useParams } from "react-router";
import { ApiError } from "@/api/http";
import { errorMessage } from "@/lib/form-errors";
import { GateSkeleton } from "@/site/gate";
import { useMe } from "@/lib/session";
import { useHydrated } from "@/lib/client-only";
import { siteLink } from "@/site/link";
import { getOrder, isOrderId, money, orderKey, orderTitle, paymentState, type Order, type OrderPayment, type OwnerOrder } from "./api";
import { lineTitle, StatusBadge } from "./cart";
import { formatDateTime } from "./dates";
import { followInterval } from "./follow";
import { useScreenTitle } from "@/site/screen-title";
import { SignInPrompt } from "./screen";
import { useShopT } from "./i18n";

/** The order id at the end of the current URL (`…/ecommerce/orders/{id}`), when it is one. */
function useOrderId(): string | null {
  const { pathname } = useLocation();
  const last = decodeURIComponent(pathname.replace(/\/+$/, "").split("/").pop() ?? "");
  return isOrderId(last) ? last : null;
}

/** One part of the order's page, titled (a heading for screen readers to jump to). */
function Part({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="mt-8" aria-labelledby={id}>
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Lines({ order, lang }: { order: Order; lang: string }) {
  const t = useShopT();
  const currency = order.billingModuleCurrency?.id;
  return (
    <Part id="order-lines" title={t("shop.page.lines")}>
      <table className="mt-3 w-full text-left" data-testid="order-lines">
        <thead className="text-sm text-neutral-600">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">
              {t("shop.page.product")}
            </th>
            <th scope="col" className="py-1 pr-3 text-right font-medium">
              {t("commerce.quantity")}
            </th>
            <th scope="col" className="py-1 text-right font-medium">
              {t("shop.page.sum")}
            </th>
          </tr>
        </thead>
        <tbody>
          {order.ordersToProducts.map((l) => {
            const total = l.total.find((x) => x.billingModuleCurrency.id === currency) ?? l.total[0];
            const slug = l.product?.slug;
            return (
              <tr key={l.id} className="border-t border-neutral-200">
                <td className="py-2 pr-3">
                  {slug ? (
                    <Link to={siteLink(`/ecommerce/products/${slug}`, lang)} className="font-medium underline-offset-4 hover:underline">
                      {lineTitle(l, lang)}
                    </Link>
                  ) : (
                    <span className="font-medium">{lineTitle(l, lang)}</span>
                  )}
                </td>
                <td className="py-2 pr-3 text-right tabular-nums">{l.quantity}</td>
                <td className="py-2 text-right tabular-nums">{total ? money(total.total, total.billingModuleCurrency, lang) : "—"}</td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr className="border-t-2 border-neutral-300">
            <th scope="row" colSpan={2} className="py-2 pr-3 text-left font-semibold">
              {t("site.total")}
            </th>
            <td className="py-2 text-right text-lg font-bold tabular-nums" data-testid="order-total">
              {money(order.checkoutTotal, order.billingModuleCurrency, lang)}
            </td>
          </tr>
        </tfoot>
      </table>
    </Part>
  );
}

function History({ order, lang }: { order: OwnerOrder; lang: string }) {
  const t = useShopT();
  // The order was placed (in the cart) before any change; each change after it, oldest first.
  const steps = [
    { id: "created", at: order.createdAt, label: t("shop.page.created") },
    ...order.statusChanges.map((c) => ({ id: c.id, at: c.createdAt, label: t(`commerce.status.${c.to}`, { defaultValue: c.to }) })),
  ];
  return (
    <Part id="order-history" title={t("shop.page.history")}>
      <ol className="mt-3 space-y-3 border-l-2 border-emerald-200 pl-4" data-testid="order-history">
        {steps.map((s) => (
          <li key={s.id} className="relative">
            <span aria-hidden className="absolute -left-[1.4rem] top-1.5 h-3 w-3 rounded-full bg-emerald-700" />
            <p className="font-medium">{s.label}</p>
            <p className="text-sm text-neutral-600">
              <time dateTime={s.at}>{formatDateTime(s.at, lang)}</time>
            </p>
          </li>
        ))}
      </ol>
    </Part>
  );
}

/** One invoice: through which provider, how much, where it stands, when; an open one links the
 * provider's page to pay on (a buyer who left it comes back from here). */
function Payment({ payment, order, lang }: { payment: OrderPayment; order: Order; lang: string }) {
  const t = useShopT();
  const provider = t(`commerce.providers.${payment.provider}`, { defaultValue: payment.provider ?? undefined });
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-neutral-200 p-4" data-testid="order-payment" data-status={payment.status}>
      <div>
        <p className="font-medium">
          {provider} · <span className="tabular-nums">{money(payment.amount, order.billingModuleCurrency, lang)}</span>
        </p>
        <p className="text-sm text-neutral-600">
          {t(`shop.page.payment.${payment.status}`)} · <time dateTime={payment.createdAt || undefined}>{formatDateTime(payment.createdAt ?? "", lang)}</time>
        </p>
      </div>
      {payment.paymentUrl ? (
        <a href={payment.paymentUrl} className="rounded-lg bg-emerald-800 px-4 py-2 font-semibold text-white hover:bg-emerald-900 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-900" data-testid="order-pay">
          {t("shop.page.pay")}
          <span className="sr-only"> ({t("shop.page.payNote", { provider })})</span>
        </a>
      ) : null}
    </li>
  );
}

/** The order's payments and, once it is paid, its receipt (the one the mails link here for). */
function Payments({ order, lang }: { order: OwnerOrder; lang: string }) {
  const t = useShopT();
  if (!order.payments.length && !order.receiptUrl) return null;
  return (
    <Part id="order-payments" title={t("shop.page.payments")}>
      <ul className="mt-3 space-y-3" data-testid="order-payments">
        {order.payments.map((p) => (
          <Payment key={p.id} payment={p} order={order} lang={lang} />
        ))}
      </ul>
      {order.receiptUrl ? (
        <p className="mt-4">
          <span className="text-neutral-700">{t("shop.page.receipt")}: </span>
          <a href={order.receiptUrl} className="font-medium text-emerald-900 underline underline-offset-4" data-testid="order-receipt">
            {t("shop.page.receiptLink")}
          </a>
        </p>
      ) : null}
    </Part>
  );
}

function OrderView({ order, lang }: { order: OwnerOrder; lang: string }) {
  const t = useShopT();
  const title = orderTitle(order, t);
  const state = paymentState(order.status);
  return (
    <article data-testid="order-page" data-status={order.status}>
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-3xl font-bold" data-testid="order-title">
            {title}
          </h1>
          <p className="mt-1 text-neutral-600">
            {t("shop.page.placed")} <time dateTime={order.createdAt}>{formatDateTime(order.createdAt, lang)}</time>
          </p>
        </div>
        <StatusBadge status={order.status} />
      </header>
      <output aria-live="polite" className="mt-4 block rounded-xl bg-neutral-50 p-4 text-neutral-800" data-testid="order-state" data-state={state}>
        {t(`shop.page.state.${state}`)}
        {order.email && state !== "open" ? ` ${t("shop.page.mailedTo", { email: order.email })}` : ""}
      </output>
      <Lines order={order} lang={lang} />
      <Payments order={order} lang={lang} />
      <History order={order} lang={lang} />
    </article>
  );
}

/** Why the order cannot be shown: not the visitor's (or gone), or another failure. */
function Refused({ error }: { error: unknown }) {
  const t = useShopT();
  const mine = error instanceof ApiError && [401, 403, 404].includes(error.status);
  if (mine) return <SignInPrompt className="mt-6" text={t("shop.page.notYours")} />;
  return (
    <p role="alert" className="mt-6 text-red-800">
      {errorMessage(error, t)}
    </p>
  );
}

export function OrderScreen() {
  const t = useShopT();
  const { lang = "ru" } = useParams();
  const id = useOrderId();
  const me = useMe();
  const hydrated = useHydrated();
  const subject = me.data?.id;
  const q = useQuery({
    queryKey: orderKey(subject, id ?? ""),
    queryFn: () => getOrder(subject as string, id as string),
    enabled: !!subject && !!id,
    retry: false,
    refetchInterval: followInterval,
  });
  let body;
  if (!id) body = <p className="mt-6 text-neutral-700">{t("shop.page.notFound")}</p>;
  else if (!hydrated || me.isPending) body = <GateSkeleton className="px-0" />;
  else if (!subject) body = <SignInPrompt className="mt-6" text={t("shop.page.signIn")} />;
  else if (q.isPending) body = <GateSkeleton className="px-0" />;
  else if (q.isError) body = <Refused error={q.error} />;
  else body = <OrderView order={q.data} lang={lang} />;
  const fallbackTitle = t("shop.order");
  useScreenTitle(q.data ? orderTitle(q.data, t) : fallbackTitle);
  return (
    <section className="mx-auto max-w-3xl px-4 py-16" data-testid="order-screen">
      <nav aria-label={t("shop.page.breadcrumbs")} className="mb-6 text-sm">
        <Link to={siteLink("/ecommerce/orders", lang)} className="font-medium text-emerald-900 underline underline-offset-4">
          ← {t("commerce.myOrders")}
        </Link>
      </nav>
      {q.data ? null : <h1 className="text-3xl font-bold">{fallbackTitle}</h1>}
      {body}
    </section>
  );
}
