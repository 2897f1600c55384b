import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "@/i18n";
import { toast } from "sonner";
import { useMe } from "@/modules/rbac/session";
import { trackEvent } from "@/lib/analytics";
import { accepts, buyNow, ensureSubject, paymentTarget, type ProviderOffer, useProviders } from "@/commerce/api";
import { formatPrice, linked, registeredLang, tr, type Price, type Rec } from "@/site/content";
import { errorMessage } from "@/lib/form-errors";
import { RichText, richOf } from "@/site/rich-text";
import { cn } from "@/ui/cn";

export const DESKTOP_AMOUNTS = [1, 3, 5, 10, 20, 50, 100, 1000];
export const MOBILE_AMOUNTS = [5, 10, 20, 50, 100];

/** The quantity rule: a whole number, at least 1 (empty while typing). */
export function clampQuantity(raw: string): number | "" {
  if (raw.trim() === "") return "";
  const n = Math.floor(Number(raw));
  return Number.isFinite(n) ? Math.max(1, Math.min(10_000, n)) : 1;
}

function Copy({ text }: { text: string }) {
  const { t } = useTranslation();
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(t("site.copied"));
      setDone(true);
      setTimeout(() => setDone(false), 3000);
    } catch {
      toast.error(t("site.copyFailed"));
    }
  };
  return (
    <button type="button" onClick={() => void copy()} data-testid="copy" className="rounded-full border border-emerald-800 px-3 py-1 text-sm font-medium text-emerald-900 hover:bg-emerald-50">
      {done ? "✓" : t("site.copy")}
    </button>
  );
}

/** Card providers by bank, in preference: a Russian (or Kazakh) bank pays through CloudPayments,
 * Payselection, PayKeeper or TipTopPay; a foreign one through Stripe or Payselection International. */
const PREFER: Record<"ru" | "foreign", string[]> = {
  ru: ["cloudpayments", "payselection", "paykeeper", "tiptoppay"],
  foreign: ["stripe", "payselection-international", "0xprocessing"],
};

/** The provider and the product's price to pay with for a bank choice: the first preferred
 * provider that is enabled and takes one of the product's currencies (roubles first). A Russian bank
 * falls back to any enabled provider (the dummy one in a demo); a foreign bank without a card
 * provider has none (its bank details are shown instead). */
export function paymentFor(bank: "ru" | "foreign", offers: ProviderOffer[], prices: Price[]): { provider: string; price: Price } | undefined {
  const ordered = [...prices].sort((a, b) => Number(b.currency.slug === "rub") - Number(a.currency.slug === "rub") || Number(b.currency.isDefault) - Number(a.currency.isDefault));
  const pick = (o: ProviderOffer) => {
    const price = ordered.find((p) => accepts(o, p.currency.slug));
    return price ? { provider: o.provider, price } : undefined;
  };
  for (const name of PREFER[bank]) {
    const o = offers.find((x) => x.provider === name);
    const found = o && pick(o);
    if (found) return found;
  }
  if (bank === "ru") {
    for (const o of offers) {
      const found = pick(o);
      if (found) return found;
    }
  }
  return undefined;
}

/** The tree donation: bank choice, quick amounts, a stepper with minimum 1, the running total. */
export function TreeDonation({ product, lang }: { product: Rec; lang: string }) {
  const { t } = useTranslation();
  const id = useId();
  const [bank, setBank] = useState<"ru" | "foreign">("ru");
  const [qty, setQty] = useState<number | "">(1);
  const prices = product._prices ?? [];
  const providers = useProviders();
  const choice = paymentFor(bank, providers.data ?? [], prices);
  const price = choice?.price ?? (bank === "ru" ? (prices.find((p) => p.currency.slug === "rub") ?? prices[0]) : undefined);
  const n = qty === "" ? 0 : qty;
  const total = price ? Number(price.amount) * n : 0;
  const step = (d: number) => setQty((q) => (d < 0 && (q === "" || q <= 1) ? q : Math.max(1, (q === "" ? 0 : q) + d)));
  const details = linked(product, "products-to-website-builder-module-widgets");
  const qc = useQueryClient();
  const me = useMe();
  const [email, setEmail] = useState("");
  const pay = useMutation({
    mutationFn: async () => {
      const provider = choice?.provider;
      if (!provider) throw new Error(t("commerce.payFailed"));
      const subject = await ensureSubject(qc, me.data);
      return buyNow(subject, product.id, {
        provider,
        quantity: qty === "" ? 1 : qty,
        email: email.trim() || undefined,
        language: lang,
        ...(price ? { billingModule: { currency: { id: price.currency.id } } } : {}),
      });
    },
    onSuccess: (r) => {
      const target = paymentTarget(r);
      if (target) window.location.assign(target);
    },
    onError: (e) => toast.error(t("commerce.payFailed"), { description: errorMessage(e, t, t("commerce.failed")) }),
  });
  const requisites = details.flatMap((w) => linked(w, "widgets-to-features"));
  const amountButton = (a: number) => (
    <button key={a} type="button" onClick={() => setQty(a)} aria-pressed={qty === a} className={cn("rounded-full border px-4 py-2 text-sm font-semibold", qty === a ? "border-lime-300 bg-lime-300 text-emerald-950" : "border-white/40 text-white hover:bg-white/10")}>
      {a}
    </button>
  );
  return (
    <div className="mx-auto max-w-3xl rounded-3xl bg-white p-6 text-emerald-950 shadow-xl sm:p-10" data-testid="tree-donation">
      <h3 className="text-2xl font-bold">{tr(product.title, lang)}</h3>
      {tr(product.shortDescription, lang) ? <p className="mt-1 text-neutral-600">{tr(product.shortDescription, lang)}</p> : null}
      <fieldset className="mt-6">
        <legend className="text-sm font-semibold">{t("site.bank")}</legend>
        <div className="mt-2 flex flex-wrap gap-4">
          {(
            [
              ["ru", t("site.bankRu")],
              ["foreign", t("site.bankForeign")],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className={cn("flex cursor-pointer items-center gap-2 rounded-full border px-4 py-2", bank === value ? "border-emerald-800 bg-emerald-50" : "border-neutral-300")}>
              <input type="radio" name={`${id}-bank`} value={value} checked={bank === value} onChange={() => setBank(value)} className="accent-emerald-800" />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {price ? (
        <div className="mt-6" data-testid={`pay-${bank}`}>
          <fieldset className="rounded-2xl bg-emerald-900 p-4">
            <legend className="sr-only">{t("site.quickAmounts")}</legend>
            <div className="hidden flex-wrap gap-2 md:flex" data-testid="amounts-desktop">
              {DESKTOP_AMOUNTS.map(amountButton)}
            </div>
            <div className="flex flex-wrap gap-2 md:hidden" data-testid="amounts-mobile">
              {MOBILE_AMOUNTS.map(amountButton)}
            </div>
          </fieldset>
          <div className="mt-6 flex flex-wrap items-end gap-4">
            <div>
              <label htmlFor={`${id}-qty`} className="text-sm font-semibold">
                {t("site.amount")}
              </label>
              <div className="mt-1 flex items-center gap-2">
                <button type="button" onClick={() => step(-1)} aria-label={t("site.less")} data-testid="minus" className="h-11 w-11 rounded-full border border-emerald-800 text-xl font-bold">
                  −
                </button>
                <input id={`${id}-qty`} data-testid="quantity" type="number" inputMode="numeric" min={1} step={1} value={qty} onChange={(e) => setQty(clampQuantity(e.target.value))} onBlur={() => qty === "" && setQty(1)} className="h-11 w-24 rounded-xl border border-neutral-300 px-3 text-center text-lg" />
                <button type="button" onClick={() => step(1)} aria-label={t("site.moreTrees")} data-testid="plus" className="h-11 w-11 rounded-full border border-emerald-800 text-xl font-bold">
                  +
                </button>
              </div>
            </div>
            <p className="ml-auto text-right">
              <span className="block text-sm text-neutral-600">{t("site.total")}</span>
              <span className="text-3xl font-bold" data-testid="total">
                {price ? formatPrice({ amount: String(total), currency: price.currency }, lang) : "—"}
              </span>
            </p>
          </div>
          <div className="mt-6">
            <label htmlFor={`${id}-email`} className="text-sm font-semibold">
              {t("commerce.emailOptional")}
            </label>
            <input id={`${id}-email`} data-testid="donation-email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} className="mt-1 h-11 w-full rounded-xl border border-neutral-300 px-3" />
          </div>
          <button type="button" data-testid="pay" disabled={pay.isPending} onClick={() => {
              trackEvent("donation-started");
              pay.mutate();
            }} className="mt-6 h-14 w-full rounded-full bg-emerald-800 text-lg font-semibold text-white hover:bg-emerald-700 disabled:opacity-70">
            {pay.isPending ? t("commerce.loadingPay") : t("site.pay")}
          </button>
        </div>
      ) : null}
      {bank === "foreign" ? (
        <div className="mt-6 space-y-4" data-testid="foreign">
          {requisites.map((r) => (
            <div key={r.id} className="flex flex-wrap items-center justify-between gap-3 rounded-2xl bg-emerald-50 p-4">
              <div>
                <p className="text-sm text-neutral-600">{tr(r.title, lang)}</p>
                <p className="font-mono text-lg font-semibold" lang={registeredLang(tr(r.subtitle, lang), lang)} data-requisite>
                  {tr(r.subtitle, lang)}
                </p>
                <RichText value={richOf(r.description, lang)} className="text-sm text-neutral-600" />
              </div>
              <Copy text={tr(r.subtitle, lang)} />
            </div>
          ))}
          {details.map((w) => (
            <div key={w.id}>
              {linked(w, "widgets-to-buttons-arrays")
                .flatMap((b) => linked(b, "buttons-arrays-to-buttons"))
                .map((b) => (
                  <a key={b.id} href={b.url ?? "#"} target="_blank" rel="noopener noreferrer" className="inline-flex h-12 items-center rounded-full bg-sky-600 px-6 font-semibold text-white hover:bg-sky-700">
                    {tr(b.title, lang)}
                  </a>
                ))}
            </div>
          ))}
          <p className="text-sm text-neutral-600">{t("site.receipt")}</p>
        </div>
      ) : null}
    </div>
  );
}
