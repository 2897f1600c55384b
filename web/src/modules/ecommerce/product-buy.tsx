//! A product page's buy box: the currency to pay in, each with the cards that pay in it
//! ('199 ₽ — Russian cards', '995 ₸ — Kazakh cards (TipTopPay)'), a quantity, the total, and
//! Buy now (through the chosen currency's provider) or Add to cart (priced in that currency).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import type { TFunction } from "@/i18n";
import { buyNow, ensureSubject, needsEmail, paymentTarget, useProviders } from "./api";
import { emailRefused, ReceiptEmailField, useReceiptForm } from "./receipt-email";
import { AddToCart } from "./cart";
import { currencyChoices, type PaymentMethod } from "./payment";
import { useMe } from "@/lib/session";
import { trackEvent } from "@/lib/analytics";
import { errorMessage } from "@/lib/form-errors";
import { formatPrice, type Price, type Rec } from "@/site/content";
import { cn } from "@/ui/cn";
import { QuantityStepper } from "./quantity";
import { useShopT } from "./i18n";

/** Who pays in a currency: '— Russian cards', '— Kazakh cards (TipTopPay)', '— foreign cards (Stripe)'. */
function cardsOf(method: PaymentMethod, t: TFunction): string {
  if (method.bank === "ru") return t("shop.currency.rub");
  if (method.bank === "kz") return t("shop.currency.kzt");
  return t("shop.currency.other", { provider: t(`commerce.providers.${method.provider}`, { defaultValue: method.provider }) });
}

export function ProductBuy({ product, lang }: { product: Rec; lang: string }) {
  const t = useShopT();
  const id = useId();
  const prices: Price[] = product._prices ?? [];
  const providers = useProviders();
  const choices = currencyChoices(providers.data ?? [], prices);
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = choices.find((c) => c.price.currency.id === picked) ?? choices[0];
  const [qty, setQty] = useState<number | "">(1);
  const n = qty === "" ? 1 : qty;
  const qc = useQueryClient();
  const me = useMe();
  const emailRequired = needsEmail(providers.data?.find((o) => o.provider === chosen?.provider));
  const form = useReceiptForm(t, emailRequired);
  const buy = useMutation({
    mutationFn: async (email: string) => {
      if (!chosen) throw new Error(t("shop.currency.none"));
      const subject = await ensureSubject(qc, me.data);
      return buyNow(subject, product.id, { provider: chosen.provider, quantity: n, email: email.trim() || undefined, language: lang, billingModule: { currency: { id: chosen.price.currency.id } } });
    },
    onSuccess: (r) => {
      const target = paymentTarget(r);
      if (target) window.location.assign(target);
    },
    onError: (e) => {
      if (emailRefused(e, form, t)) return;
      toast.error(t("commerce.payFailed"), { description: errorMessage(e, t, t("commerce.failed")) });
    },
  });
  if (prices.length === 0) return null;
  // Until the providers are known, every price is shown as it is (the server's page has them too).
  if (!providers.data) {
    return (
      <p className="mt-6 flex flex-wrap gap-3 text-3xl font-semibold text-emerald-900" data-testid="prices">
        {prices.map((p) => (
          <span key={p.currency.id}>{formatPrice(p, lang)}</span>
        ))}
      </p>
    );
  }
  if (!chosen) return <p className="mt-6 text-neutral-700">{t("shop.currency.none")}</p>;
  return (
    <form
      noValidate
      aria-label={t("shop.buyNow")}
      onSubmit={form.handleSubmit((v) => {
        trackEvent("checkout-started");
        buy.mutate(v.email);
      })}
      className="mt-6 rounded-2xl border border-emerald-100 bg-emerald-50/50 p-5"
      data-testid="product-buy"
    >
      <fieldset>
        <legend className="text-sm font-semibold">{t("shop.currency.legend")}</legend>
        <div className="mt-2 grid gap-2" data-testid="prices">
          {choices.map((c) => {
            const selected = c === chosen;
            return (
              <label key={c.price.currency.id} className={cn("flex cursor-pointer items-center gap-3 rounded-xl border bg-white px-4 py-3 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-emerald-800", selected ? "border-emerald-800" : "border-neutral-300")}>
                <input type="radio" name={`${id}-currency`} checked={selected} onChange={() => setPicked(c.price.currency.id)} className="shrink-0 accent-emerald-800" data-testid={`currency-${c.price.currency.slug}`} aria-labelledby={`${id}-${c.price.currency.slug}`} />
                <span id={`${id}-${c.price.currency.slug}`} className="flex flex-wrap items-baseline gap-x-2">
                  <span className="whitespace-nowrap text-2xl font-bold text-emerald-900">{formatPrice(c.price, lang)}</span>
                  <span className="text-neutral-700">— {cardsOf(c, t)}</span>
                </span>
              </label>
            );
          })}
        </div>
      </fieldset>
      <div className="mt-4 flex flex-wrap items-end gap-4">
        <QuantityStepper id={`${id}-qty`} label={t("commerce.quantity")} value={qty} onChange={setQty} testId="product-" />
        <p className="ml-auto text-right">
          <span className="block text-sm text-neutral-700">{t("site.total")}</span>
          <span className="text-3xl font-bold" data-testid="product-total">
            {formatPrice({ amount: String(Number(chosen.price.amount) * n), currency: chosen.price.currency }, lang)}
          </span>
        </p>
      </div>
      <div className="mt-4">
        <ReceiptEmailField form={form} id={`${id}-email`} testId="product-email" required={emailRequired} label={t("commerce.emailOptional")} help={t(emailRequired ? "shop.receiptHelp" : "shop.receiptHelpOptional")} />
      </div>
      <div className="mt-5 flex flex-wrap gap-3">
        <button
          type="submit"
          data-testid="buy-now"
          disabled={buy.isPending}
          className="inline-flex h-11 items-center justify-center rounded-full bg-emerald-800 px-6 font-semibold text-white hover:bg-emerald-700 disabled:opacity-60"
        >
          {buy.isPending ? t("commerce.loadingPay") : t("shop.buyNow")}
        </button>
        <AddToCart productId={product.id} quantity={n} currency={chosen.price.currency.id} className="border border-emerald-800 bg-white text-emerald-900 hover:bg-emerald-50" />
      </div>
    </form>
  );
}
