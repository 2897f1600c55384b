import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import { useMe } from "@/lib/session";
import { trackEvent } from "@/lib/analytics";
import { accepts, buyNow, ensureSubject, useProviders, type Invoice, type ProviderOffer } from "./api";
import { emailRefused, ReceiptEmailField, useReceiptForm } from "./receipt-email";
import { formatPrice, tr, type Rec } from "@/site/content";
import { errorMessage } from "@/lib/form-errors";
import { useShopT } from "./i18n";
import { QuantityStepper } from "./quantity";

/** A provider's own card widget, as `/api/billing/providers` offers it. */
export type CardWidget = { script: string; publicId: string; global: "cp.CloudPayments" | "tiptop.Widget" };

type WidgetCallbacks = {
  onSuccess: (options: unknown) => void;
  onFail: (reason: string, options: unknown) => void;
};
type WidgetInstance = { pay: (mode: "charge", options: Record<string, unknown>, callbacks: WidgetCallbacks) => void };
type WidgetClass = new (init: { language: string }) => WidgetInstance;

const loading = new Map<string, Promise<void>>();

/** The widget closed without a payment (the buyer closed it, or the bank declined): nothing was
 * charged. Its own words are in its language, so the page says what it means instead. */
class NotPaid extends Error {}

/** Loads `src` once per page (the site's CSP allows the configured widget's origin). */
function loadScript(src: string): Promise<void> {
  let p = loading.get(src);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const s = document.createElement("script");
      s.src = src;
      s.async = true;
      s.onload = () => resolve();
      s.onerror = () => {
        loading.delete(src);
        s.remove();
        reject(new Error("the payment form could not be loaded"));
      };
      document.head.appendChild(s);
    });
    loading.set(src, p);
  }
  return p;
}

/** The constructor `global` names (`cp.CloudPayments`) once its script ran. */
function widgetClass(global: string): WidgetClass | null {
  let at: unknown = window;
  for (const part of global.split(".")) at = (at as Record<string, unknown> | undefined)?.[part];
  return typeof at === "function" ? (at as WidgetClass) : null;
}

/** The widget's options for paying `invoice` (SPEC §2: skin mini, the email asked). */
export function widgetOptions(widget: CardWidget, invoice: Invoice, description: string, email: string): Record<string, unknown> {
  return {
    publicId: widget.publicId,
    description,
    amount: Number(invoice.amount),
    currency: invoice.currency.toUpperCase(),
    invoiceId: invoice.id,
    accountId: email,
    email,
    requireEmail: true,
    skin: "mini",
    data: { invoiceId: invoice.id },
  };
}

/** The provider with a card widget that takes the product's price: roubles first (SPEC §2). */
export function cardOffer(offers: ProviderOffer[], prices: Rec["_prices"]): { offer: ProviderOffer & { widget: CardWidget }; price: NonNullable<Rec["_prices"]>[number] } | null {
  const withWidget = offers.filter((o): o is ProviderOffer & { widget: CardWidget } => !!o.widget);
  const list = prices ?? [];
  for (const slug of ["rub", ...list.map((p) => p.currency.slug)]) {
    const price = list.find((p) => p.currency.slug === slug);
    const offer = price && withWidget.find((o) => accepts(o, slug));
    if (offer && price) return { offer, price };
  }
  return null;
}

/** The donation's card variant (SPEC §2): the number of trees, the total, the receipt email and
 * "Pay by card", which opens the provider's own card form (CloudPayments' widget) over the page.
 * SPEC opens it in 'auth' mode: two stages, the money only held until the shop confirms it, which
 * the original never did (its callbacks only log) — those donations were never taken. Stoa opens
 * it in 'charge' mode, one stage, the way its hosted payments are made. Its payment carries the invoice's id, so the provider's signed notification
 * settles it as a hosted payment's does, and the page goes on to the success page. */
export function CardDonation({ product, lang }: { product: Rec; lang: string }) {
  const t = useShopT();
  const id = useId();
  const providers = useProviders();
  const found = cardOffer(providers.data ?? [], product._prices);
  const [qty, setQty] = useState<number | "">(1);
  const n = qty === "" ? 0 : qty;
  const qc = useQueryClient();
  const me = useMe();
  const form = useReceiptForm(t, true);
  const title = tr(product.title, lang);
  const providerName = found ? t(`commerce.providers.${found.offer.provider}`, { defaultValue: found.offer.provider }) : "";
  const pay = useMutation({
    mutationFn: async (email: string) => {
      if (!found) throw new Error(t("shop.card.unavailable"));
      const subject = await ensureSubject(qc, me.data);
      const address = email.trim();
      const r = await buyNow(subject, product.id, {
        provider: found.offer.provider,
        quantity: n || 1,
        email: address,
        language: lang,
        billingModule: { currency: { id: found.price.currency.id } },
      });
      const invoice = r.billingModule.invoices[0];
      if (!invoice) throw new Error(t("commerce.payFailed"));
      await loadScript(found.offer.widget.script);
      const Widget = widgetClass(found.offer.widget.global);
      if (!Widget) throw new Error(t("shop.card.unavailable"));
      const options = widgetOptions(found.offer.widget, invoice, t("shop.card.description", { title, count: n || 1 }), address);
      return new Promise<string>((resolve, reject) => {
        new Widget({ language: lang === "ru" ? "ru-RU" : "en-US" }).pay("charge", options, {
          onSuccess: () => resolve(invoice.successUrl ?? `/${lang}/ecommerce/checkout/success`),
          onFail: (reason) => reject(new NotPaid(reason)),
        });
      });
    },
    onSuccess: (target) => window.location.assign(target),
    onError: (e) => {
      if (emailRefused(e, form, t)) return;
      toast.error(t("shop.card.notPaid"), { description: e instanceof NotPaid ? t("shop.card.noCharge") : errorMessage(e, t, t("commerce.failed")) });
    },
  });
  const price = found?.price ?? (product._prices ?? []).find((p) => p.currency.slug === "rub");
  return (
    <form
      noValidate
      aria-label={title}
      onSubmit={form.handleSubmit((v) => {
        trackEvent("donation-started");
        pay.mutate(v.email);
      })}
      className="mx-auto max-w-xl scroll-mt-20 rounded-3xl bg-white p-6 text-emerald-950 shadow-xl sm:p-10"
      data-testid="card-donation"
    >
      <h3 className="text-2xl font-bold">{title}</h3>
      {tr(product.shortDescription, lang) ? <p className="mt-1 text-neutral-700">{tr(product.shortDescription, lang)}</p> : null}
      {price ? (
        <>
          <div className="mt-6 flex flex-wrap items-end gap-4">
            <QuantityStepper id={`${id}-qty`} label={t("site.amount")} value={qty} onChange={setQty} />
            <p className="ml-auto text-right">
              <span className="block text-sm text-neutral-700">{t("site.total")}</span>
              <span className="text-3xl font-bold" data-testid="total">
                {formatPrice({ amount: String(Number(price.amount) * n), currency: price.currency }, lang)}
              </span>
            </p>
          </div>
          <p className="mt-2 text-sm text-neutral-700">{t("shop.donation.perTree", { price: formatPrice(price, lang) })}</p>
          <div className="mt-6">
            <ReceiptEmailField form={form} id={`${id}-email`} testId="card-donation-email" required label={t("commerce.emailOptional")} help={t("shop.receiptHelp")} />
          </div>
          <button type="submit" data-testid="card-pay" disabled={pay.isPending || !found} className="mt-6 h-14 w-full rounded-full bg-emerald-800 text-lg font-semibold text-white hover:bg-emerald-700 disabled:opacity-70">
            {pay.isPending ? t("shop.card.opening") : t("shop.card.pay")}
          </button>
          <p className="mt-3 text-sm text-neutral-700">{found ? t("shop.card.note", { provider: providerName }) : providers.isSuccess ? t("shop.card.unavailable") : null}</p>
        </>
      ) : null}
    </form>
  );
}
