//! analytic's public widget: the project's counters a visitor may see — trees paid for on the site
//! (the campaign counter, public) and articles published in the blog (a count of the public list).
//! The module's own counters (page views, referrers) are private to admins and not shown.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/api/client";
import { useTranslation } from "@/i18n";
import { formatNumber } from "@/lib/number";
import { tr } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { Block } from "@/site/blocks";
import { useWidgetsT } from "@/site/widgets-i18n";

function Counter({ value, label, testId }: { value: number | undefined; label: (n: number) => string; testId: string }) {
  const t = useWidgetsT();
  const { i18n } = useTranslation();
  return (
    <div className="flex flex-col gap-1 rounded-2xl border border-emerald-100 bg-emerald-50 p-6" data-testid={testId}>
      {value === undefined ? (
        <>
          <span className="text-4xl font-bold text-emerald-900" aria-hidden>
            —
          </span>
          <span className="text-neutral-700">{t("widgets.analytic.loading")}</span>
        </>
      ) : (
        <>
          <span className="text-4xl font-bold tabular-nums text-emerald-900">{formatNumber(i18n.language, value)}</span>
          <span className="text-neutral-700">{label(value)}</span>
        </>
      )}
    </div>
  );
}

function PublicCounters({ data, lang }: VariantProps) {
  const t = useWidgetsT();
  const trees = useQuery({ queryKey: ["paid-orders-to-products-quantity"], queryFn: () => api.get("/api/ecommerce/orders/paid-orders-to-products-quantity") });
  const articles = useQuery({
    queryKey: ["blog", "articles", "count"],
    queryFn: async () => (await api.page("/api/blog/articles", { params: { query: { count: true, limit: 1 } } })).total ?? 0,
  });
  // A counter that could not be read is left out (never shown as 0); with none left, the block.
  if (trees.isError && articles.isError) return null;
  return (
    <Block data={{ ...data, title: tr(data.title, lang) || t("widgets.analytic.title") }} lang={lang}>
      {tr(data.subtitle, lang) ? <p className="-mt-3 mb-6 max-w-2xl text-lg text-neutral-600">{tr(data.subtitle, lang)}</p> : null}
      <div className="grid gap-4 sm:grid-cols-2" data-testid="public-counters">
        {trees.isError ? null : <Counter testId="counter-trees" value={trees.data} label={(n) => t("widgets.analytic.trees", { count: n })} />}
        {articles.isError ? null : <Counter testId="counter-articles" value={articles.data} label={(n) => t("widgets.analytic.articles", { count: n })} />}
      </div>
    </Block>
  );
}

/** Every declared variant of analytic widgets. */
export const variants = { default: PublicCounters } satisfies VariantsOf<"analytic">;
