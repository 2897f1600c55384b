//! How a visitor pays: by the bank of their card, each way in one currency through one provider
//! (SPEC §9: a tree is 199 RUB through a Russian card provider or 995 KZT through TipTopPay; a
//! foreign card pays through Stripe and the like). The choices are made from the providers the
//! server has enabled (`useProviders`) and the prices the product has.
import type { Price } from "@/site/content";
import { accepts, type ProviderOffer } from "./api";

/** The bank of the visitor's card. */
export type Bank = "ru" | "kz" | "foreign";

/** One way to pay: the bank it is for, the provider, and the product's price it charges. */
export interface PaymentMethod {
  bank: Bank;
  provider: string;
  price: Price;
}

/** Card providers by bank, in preference. */
const PREFER: Record<Bank, readonly string[]> = {
  ru: ["cloudpayments", "payselection", "paykeeper"],
  kz: ["tiptoppay"],
  foreign: ["stripe", "payselection-international", "0xprocessing"],
};

/** The currency each bank's cards pay in (foreign cards: whichever the provider takes). */
const CURRENCY: Record<Bank, string | null> = { ru: "rub", kz: "kzt", foreign: null };

/** Providers that serve one bank only: never offered as another bank's fallback. */
const DEDICATED = new Set(Object.values(PREFER).flat());

/** Roubles first, then the product's default currency, then the rest as given. */
function byPreference(prices: readonly Price[]): Price[] {
  return [...prices].sort((a, b) => Number(b.currency.slug === "rub") - Number(a.currency.slug === "rub") || Number(b.currency.isDefault) - Number(a.currency.isDefault));
}

/**
 * The way to pay with a card of `bank`: the first preferred provider that is enabled and takes a
 * price of the product in the bank's currency. A Russian card falls back to a provider that is no
 * bank's own (the dummy one in a demo); a Kazakh card pays through TipTopPay only; a foreign card
 * without a provider of its own has none (the bank details are shown instead).
 */
export function paymentFor(bank: Bank, offers: readonly ProviderOffer[], prices: readonly Price[]): PaymentMethod | undefined {
  const want = CURRENCY[bank];
  const ordered = byPreference(prices).filter((p) => !want || p.currency.slug.toLowerCase() === want);
  const pick = (o: ProviderOffer): PaymentMethod | undefined => {
    const price = ordered.find((p) => accepts(o, p.currency.slug));
    return price ? { bank, provider: o.provider, price } : undefined;
  };
  for (const name of PREFER[bank]) {
    const o = offers.find((x) => x.provider === name);
    const found = o && pick(o);
    if (found) return found;
  }
  if (bank === "ru") {
    for (const o of offers.filter((x) => !DEDICATED.has(x.provider))) {
      const found = pick(o);
      if (found) return found;
    }
  }
  return undefined;
}

/** What a price's currency is paid with, for the product page's choice (`₽ — Russian cards`):
 * the bank whose cards pay in it, else foreign cards. */
export function bankOfCurrency(slug: string): Bank {
  const s = slug.toLowerCase();
  return s === "rub" ? "ru" : s === "kzt" ? "kz" : "foreign";
}

/** One choice per price of the product that some enabled provider can charge, with that provider. */
export function currencyChoices(offers: readonly ProviderOffer[], prices: readonly Price[]): PaymentMethod[] {
  const out: PaymentMethod[] = [];
  for (const price of byPreference(prices)) {
    const bank = bankOfCurrency(price.currency.slug);
    const method = paymentFor(bank, offers, [price]);
    if (method) out.push(method);
  }
  return out;
}
