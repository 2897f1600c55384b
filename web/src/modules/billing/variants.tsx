//! billing's public widget: the ways a visitor can pay here — the enabled payment providers, in the
//! server's order, with the currencies each takes (`/api/billing/providers`, public).
import { useQuery } from "@tanstack/react-query";
import { api } from "@/api/client";
import { tr } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { Block } from "@/site/blocks";
import { useProviders } from "./providers";
import { useWidgetsT } from "@/site/widgets-i18n";

/** A currency as a reader knows it: its sign and code (`₽ RUB`); the code alone without a sign. */
export function currencyLabel(code: string, currencies: readonly { slug: string; symbol: string }[]): string {
  const upper = code.toUpperCase();
  const symbol = currencies.find((c) => c.slug.toLowerCase() === code.toLowerCase())?.symbol;
  return symbol ? `${symbol} ${upper}` : upper;
}

function PaymentMethods({ data, lang }: VariantProps) {
  const t = useWidgetsT();
  const providers = useProviders();
  const currencies = useQuery({ queryKey: ["commerce", "currencies"], queryFn: () => api.get("/api/billing/currencies", { params: { query: { limit: 50 } } }), staleTime: 5 * 60_000 });
  const subtitle = tr(data.subtitle, lang);
  const offers = providers.data ?? [];
  return (
    <Block data={{ ...data, title: tr(data.title, lang) || t("widgets.billing.title") }} lang={lang}>
      <p className="-mt-3 mb-6 max-w-2xl text-lg text-neutral-600">{subtitle || t("widgets.billing.intro")}</p>
      {providers.isPending ? (
        <output className="block text-neutral-600">{t("widgets.billing.loading")}</output>
      ) : offers.length ? (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="payment-methods">
          {offers.map((o) => (
            <li key={o.provider} className="flex flex-col gap-3 rounded-2xl border border-neutral-200 bg-white p-5">
              <span className="text-lg font-semibold">{t(`commerce.providers.${o.provider}`, { defaultValue: t("widgets.billing.title") })}</span>
              <span className="sr-only">{t("widgets.billing.currencies")}:</span>
              <span className="flex flex-wrap gap-2">
                {(o.currencies.length ? o.currencies : [null]).map((c) => (
                  <span key={c ?? "any"} className="rounded-full bg-emerald-50 px-3 py-1 text-sm font-medium text-emerald-900">
                    {c ? currencyLabel(c, currencies.data ?? []) : t("widgets.billing.anyCurrency")}
                  </span>
                ))}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-neutral-600">{t("widgets.billing.none")}</p>
      )}
    </Block>
  );
}

/** Every declared variant of billing widgets. */
export const variants = { default: PaymentMethods } satisfies VariantsOf<"billing">;
