import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type RefObject } from "react";
import { useLocation, useSearchParams } from "react-router";
import { toast } from "sonner";
import type { TFunction } from "@/i18n";
import { useMe } from "@/lib/session";
import { trackEvent } from "@/lib/analytics";
import { buyNow, ensureSubject, needsEmail, paymentTarget, useProviders } from "./api";
import { emailRefused, ReceiptEmailField, useReceiptForm } from "./receipt-email";
import { paymentFor, type Bank, type PaymentMethod } from "./payment";
import { formatPrice, linked, registeredLang, tr, type Rec } from "@/site/content";
import { errorMessage } from "@/lib/form-errors";
import { RichText, richOf } from "@/site/rich-text";
import { cn } from "@/ui/cn";
import { useShopT } from "./i18n";
import { MAX_QUANTITY, QuantityStepper } from "./quantity";

export const DESKTOP_AMOUNTS = [1, 3, 5, 10, 20, 50, 100, 1000];
/** SPEC §2's phone amounts (5, 10, 20, 50, 100) and 1, the default, so the chosen one always shows. */
export const MOBILE_AMOUNTS = [1, 5, 10, 20, 50, 100];
export { clampQuantity, MAX_QUANTITY } from "./quantity";

/** A whole number of trees from a link or a card's heading (`10 деревьев`, `1,000 trees`), or null. */
export function quantityIn(text: string | null | undefined): number | null {
  const m = /\d[\d\s\u00a0\u202f,.]*/.exec(text ?? "");
  if (!m) return null;
  const n = Number(m[0].replace(/[\s\u00a0\u202f,.]/g, ""));
  return Number.isInteger(n) && n >= 1 && n <= MAX_QUANTITY ? n : null;
}

/** Elements that end the search for a link's card. */
const BLOCKS = "section, header, nav, footer, main, article, aside, body";

/**
 * The quantity a link to the donation form asks for: `?trees=N` (or `?quantity=N`) in its URL,
 * else the number in the heading of the card it sits in (a tier card: '10 деревьев' … 'Выбрать').
 * Links outside a card (a menu, a hero button) ask for none.
 */
export function requestedQuantity(link: HTMLAnchorElement, base: string): number | null {
  let url: URL;
  try {
    url = new URL(link.getAttribute("href") ?? "", base);
  } catch {
    return null;
  }
  const asked = url.searchParams.get("trees") ?? url.searchParams.get("quantity");
  if (asked !== null) return quantityIn(asked);
  // Up to the block the link is in, never past it: a menu's or a hero's link is in no card.
  for (let el = link.parentElement; el && !el.matches(BLOCKS); el = el.parentElement) {
    const heading = el.querySelector("h2, h3, h4");
    if (heading) return quantityIn(heading.textContent);
  }
  return null;
}

/** Is `link` a link to this page's `section`, or to the block just before it that introduces it? */
export function linksTo(link: HTMLAnchorElement, section: HTMLElement, here: Pick<URL, "href" | "origin" | "pathname">): boolean {
  let url: URL;
  try {
    url = new URL(link.getAttribute("href") ?? "", here.href);
  } catch {
    return false;
  }
  if (url.origin !== here.origin || url.pathname.replace(/\/+$/, "") !== here.pathname.replace(/\/+$/, "") || url.hash.length < 2) return false;
  const id = decodeURIComponent(url.hash.slice(1));
  return section.id === id || (section.previousElementSibling as HTMLElement | null)?.id === id;
}

/**
 * Presets the quantity when a visitor follows a link to the form from a tier card ('Выбрать' on
 * '10 деревьев'), or opens the page with `?trees=N`; then brings the form into view and puts the
 * focus on the quantity, so the next key press acts on it.
 */
function useTierPreset(form: RefObject<HTMLElement | null>, quantity: RefObject<HTMLInputElement | null>, preset: (n: number) => void) {
  const [params] = useSearchParams();
  const asked = quantityIn(params.get("trees") ?? params.get("quantity"));
  const apply = useRef(preset);
  // The page's path as the router has it (the address bar's, in a browser).
  const { pathname, key } = useLocation();
  const path = useRef(pathname);
  useEffect(() => {
    apply.current = preset;
    path.current = pathname;
  });
  useEffect(() => {
    if (asked) apply.current(asked);
  }, [asked]);
  // The location a tier was clicked at; once its navigation has landed (a new location), the form
  // takes the view and the focus — after the route has moved them to the link's anchor
  // (`site/page.tsx`).
  const arriving = useRef<string | null>(null);
  const at = useRef(key);
  const bring = useRef(() => {
    arriving.current = null;
    const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    form.current?.scrollIntoView({ block: "start", behavior: reduce ? "auto" : "smooth" });
    quantity.current?.focus({ preventScroll: true });
  });
  useEffect(() => {
    at.current = key;
    if (arriving.current === null || arriving.current === key) return;
    // After every effect of this navigation (the route's own runs after ours).
    const timer = window.setTimeout(() => bring.current(), 0);
    return () => window.clearTimeout(timer);
  }, [key]);
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      const link = (e.target as Element | null)?.closest?.("a[href]");
      const section = form.current?.closest("section");
      const here = new URL(path.current, window.location.origin);
      if (!(link instanceof HTMLAnchorElement) || !section || !linksTo(link, section, here)) return;
      const n = requestedQuantity(link, here.href);
      if (n === null) return;
      apply.current(n);
      arriving.current = at.current;
      // A link the router does not handle lands without a navigation of its own.
      window.setTimeout(() => arriving.current !== null && bring.current(), 500);
    };
    document.addEventListener("click", onClick);
    return () => document.removeEventListener("click", onClick);
  }, [form]);
}

function Copy({ text }: { text: string }) {
  const t = useShopT();
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

/** What the bank choice says under its name: the currency, and the provider or the details. */
function bankHint(bank: Bank, method: PaymentMethod | undefined, t: TFunction): string {
  if (bank === "foreign" && !method) return t("shop.donation.hint.foreignDetails");
  const provider = method ? t(`commerce.providers.${method.provider}`, { defaultValue: method.provider }) : "";
  return t(`shop.donation.hint.${bank}`, { provider });
}

/** The foreign bank's details (PayPal, a Telegram link), in the page's language. */
function ForeignDetails({ product, lang }: { product: Rec; lang: string }) {
  const t = useShopT();
  const details = linked(product, "products-to-website-builder-module-widgets");
  const requisites = details.flatMap((w) => linked(w, "widgets-to-features"));
  return (
    <div className="mt-6 space-y-4" data-testid="foreign">
      {details.map((w) => (tr(w.title, lang) ? <h4 key={`${w.id}-title`} className="text-lg font-semibold">{tr(w.title, lang)}</h4> : null))}
      {requisites.map((r) => (
        <div key={r.id} className="flex flex-wrap items-center justify-between gap-3 rounded-2xl bg-emerald-50 p-4">
          <div className="min-w-0">
            <p className="text-sm text-neutral-700">{tr(r.title, lang)}</p>
            <p className="break-all font-mono text-lg font-semibold" lang={registeredLang(tr(r.subtitle, lang), lang)} data-requisite>
              {tr(r.subtitle, lang)}
            </p>
            <RichText value={richOf(r.description, lang)} className="text-sm text-neutral-700" />
          </div>
          <Copy text={tr(r.subtitle, lang)} />
        </div>
      ))}
      {details.map((w) => (
        <div key={w.id}>
          {linked(w, "widgets-to-buttons-arrays")
            .flatMap((b) => linked(b, "buttons-arrays-to-buttons"))
            .map((b) => (
              <a key={b.id} href={b.url ?? "#"} target="_blank" rel="noopener noreferrer" className="inline-flex h-12 items-center rounded-full bg-sky-700 px-6 font-semibold text-white hover:bg-sky-800">
                {tr(b.title, lang)}
              </a>
            ))}
        </div>
      ))}
      <p className="text-sm text-neutral-700">{t("site.receipt")}</p>
    </div>
  );
}

/** The tree donation: the bank of the card (and so the currency and provider), quick amounts, a
 * stepper with minimum 1, the running total, the receipt email and Pay. */
export function TreeDonation({ product, lang }: { product: Rec; lang: string }) {
  const t = useShopT();
  const id = useId();
  const prices = product._prices ?? [];
  const providers = useProviders();
  const offers = providers.data ?? [];
  const methods: Record<Bank, PaymentMethod | undefined> = {
    ru: paymentFor("ru", offers, prices),
    kz: paymentFor("kz", offers, prices),
    foreign: paymentFor("foreign", offers, prices),
  };
  const banks: Bank[] = ["ru", ...(methods.kz ? (["kz"] as const) : []), "foreign"];
  const [picked, setBank] = useState<Bank>("ru");
  const bank = banks.includes(picked) ? picked : "ru";
  const method = methods[bank];
  // Before the providers are known, roubles (what a Russian card pays in) are shown.
  const price = method?.price ?? (bank === "ru" ? (prices.find((p) => p.currency.slug === "rub") ?? prices[0]) : undefined);
  const [qty, setQty] = useState<number | "">(1);
  const n = qty === "" ? 0 : qty;
  const total = price ? Number(price.amount) * n : 0;
  const formRef = useRef<HTMLFormElement>(null);
  const qtyRef = useRef<HTMLInputElement>(null);
  useTierPreset(formRef, qtyRef, (k) => setQty(k));
  const qc = useQueryClient();
  const me = useMe();
  const emailRequired = needsEmail(offers.find((o) => o.provider === method?.provider));
  const form = useReceiptForm(t, emailRequired);
  const pay = useMutation({
    mutationFn: async (email: string) => {
      if (!method) throw new Error(t("commerce.payFailed"));
      const subject = await ensureSubject(qc, me.data);
      return buyNow(subject, product.id, {
        provider: method.provider,
        quantity: qty === "" ? 1 : qty,
        email: email.trim() || undefined,
        language: lang,
        billingModule: { currency: { id: method.price.currency.id } },
      });
    },
    onSuccess: (r) => {
      const target = paymentTarget(r);
      if (target) window.location.assign(target);
    },
    onError: (e) => {
      // A message about the email goes on the field (and the focus with it); anything else is a toast.
      if (emailRefused(e, form, t)) return;
      toast.error(t("commerce.payFailed"), { description: errorMessage(e, t, t("commerce.failed")) });
    },
  });
  const amountButton = (a: number) => (
    <button key={a} type="button" onClick={() => setQty(a)} aria-pressed={qty === a} className={cn("min-w-12 rounded-full border px-4 py-2 text-sm font-semibold", qty === a ? "border-lime-300 bg-lime-300 text-emerald-950 ring-2 ring-lime-200 ring-offset-2 ring-offset-emerald-900" : "border-white/40 text-white hover:bg-white/10")}>
      {a}
    </button>
  );
  return (
    <form
      ref={formRef}
      noValidate
      aria-label={tr(product.title, lang)}
      onSubmit={form.handleSubmit((v) => {
        trackEvent("donation-started");
        pay.mutate(v.email);
      })}
      className="mx-auto max-w-3xl scroll-mt-20 rounded-3xl bg-white p-6 text-emerald-950 shadow-xl sm:p-10"
      data-testid="tree-donation"
    >
      <h3 className="text-2xl font-bold">{tr(product.title, lang)}</h3>
      {tr(product.shortDescription, lang) ? <p className="mt-1 text-neutral-700">{tr(product.shortDescription, lang)}</p> : null}
      <fieldset className="mt-6">
        <legend className="text-sm font-semibold">{t("shop.donation.bank")}</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-3" data-testid="banks">
          {banks.map((value) => (
            <label key={value} className={cn("flex cursor-pointer items-start gap-2 rounded-2xl border px-4 py-3 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-emerald-800", bank === value ? "border-emerald-800 bg-emerald-50" : "border-neutral-300")}>
              <input type="radio" name={`${id}-bank`} value={value} checked={bank === value} onChange={() => setBank(value)} aria-labelledby={`${id}-${value}-name`} aria-describedby={`${id}-${value}-hint`} className="mt-1 accent-emerald-800" data-testid={`bank-${value}`} />
              <span>
                <span id={`${id}-${value}-name`} className="block font-medium">
                  {t(`shop.donation.banks.${value}`)}
                </span>
                <span id={`${id}-${value}-hint`} className="block text-sm text-neutral-700">
                  {bankHint(value, methods[value], t)}
                </span>
              </span>
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
            <QuantityStepper id={`${id}-qty`} label={t("site.amount")} value={qty} onChange={setQty} inputRef={qtyRef} />
            <p className="ml-auto text-right">
              <span className="block text-sm text-neutral-700">{t("site.total")}</span>
              <span className="text-3xl font-bold" data-testid="total">
                {formatPrice({ amount: String(total), currency: price.currency }, lang)}
              </span>
            </p>
          </div>
          <p className="mt-2 text-sm text-neutral-700" data-testid="pay-with">
            {method
              ? t("shop.donation.payWith", { price: formatPrice(price, lang), provider: t(`commerce.providers.${method.provider}`, { defaultValue: method.provider }) })
              : t("shop.donation.perTree", { price: formatPrice(price, lang) })}
          </p>
          <div className="mt-6">
            <ReceiptEmailField form={form} id={`${id}-email`} testId="donation-email" required={emailRequired} label={t("commerce.emailOptional")} help={t(emailRequired ? "shop.receiptHelp" : "shop.receiptHelpOptional")} />
          </div>
          <button type="submit" data-testid="pay" disabled={pay.isPending || !method} className="mt-6 h-14 w-full rounded-full bg-emerald-800 text-lg font-semibold text-white hover:bg-emerald-700 disabled:opacity-70">
            {pay.isPending ? t("commerce.loadingPay") : t("site.pay")}
          </button>
        </div>
      ) : null}
      {bank === "foreign" ? <ForeignDetails product={product} lang={lang} /> : null}
    </form>
  );
}
