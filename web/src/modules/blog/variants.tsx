import { useTranslation } from "@/i18n";
import { Link } from "react-router";
import { linked, tr, type Rec } from "@/site/content";
import { siteLink } from "@/site/link";
import { RenderVariant, type VariantProps } from "@/site/registry";
import { RichText, richOf } from "@/site/rich-text";
import type { VariantKey, VariantsOf } from "@/site/variants";
import { Block, Body, Card, Cover, ListGrid, Prices } from "@/site/blocks";
import { listedArticles, orderedArticles, titledIn } from "./article-meta";
import { ArticleCard, ArticleMeta } from "./parts";
import { RelatedArticles } from "./related";

const categoryUrl = (c: Rec, lang: string) => siteLink(`/blog/categories/${c.slug}`, lang);

function Empty() {
  const { t } = useTranslation();
  return <p className="text-neutral-600">{t("site.noItems")}</p>;
}

function CategoryList({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const items = data._list ?? [];
  return (
    <Block data={data} lang={lang}>
      {items.length ? null : <Empty />}
      <ListGrid>
        {items.map((c) => (
          <Card key={c.id} data={c} lang={lang}>
            <Link to={categoryUrl(c, lang)} className="mt-4 inline-flex w-fit rounded-full bg-emerald-800 px-5 py-2 text-sm font-semibold text-white hover:bg-emerald-700" aria-label={`${t("site.more")}: ${tr(c.title, lang)}`}>
              {t("site.more")}
            </Link>
          </Card>
        ))}
      </ListGrid>
    </Block>
  );
}

function CategoryButtons({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <div className="flex flex-wrap gap-2">
        {(data._list ?? []).map((c) => (
          <Link key={c.id} to={categoryUrl(c, lang)} className="rounded-full border border-emerald-800 px-4 py-1.5 text-sm font-medium text-emerald-900 hover:bg-emerald-50">
            {tr(c.title, lang)}
          </Link>
        ))}
      </div>
    </Block>
  );
}

function ArticleCards({ items: all, lang }: { items: Rec[]; lang: string }) {
  const items = all.filter(titledIn(lang));
  if (!items.length) return <Empty />;
  // Cards keep their own height (`items-start`): a compact card beside one with a cover is not
  // stretched into a tall empty box.
  return (
    <div className="grid items-start gap-6 md:grid-cols-2" data-testid="article-cards">
      {items.map((a) => (
        <ArticleCard key={a.id} article={a} lang={lang} />
      ))}
    </div>
  );
}

function ArticleList({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <ArticleCards items={listedArticles(data)} lang={lang} />
    </Block>
  );
}

function CategoryOverview({ data, lang, url }: VariantProps) {
  const { t } = useTranslation();
  const c = data._record;
  if (!c) return null;
  return (
    <Block data={{ ...data, title: c.title }} lang={lang}>
      {tr(c.subtitle, lang) ? <p className="-mt-4 mb-4 text-lg text-neutral-600">{tr(c.subtitle, lang)}</p> : null}
      <Body data={c} lang={lang} />
      <h3 className="mb-4 mt-8 text-xl font-semibold">{t("site.articles")}</h3>
      <ArticleCards items={orderedArticles(c._rel?.["categories-to-articles"] ?? [])} lang={lang} />
      <RenderWidgets record={c} relation="categories-to-website-builder-module-widgets" lang={lang} url={url} />
    </Block>
  );
}

function RenderWidgets({ record, relation, lang, url }: { record: Rec; relation: string; lang: string; url: string }) {
  return (
    <>
      {linked(record, relation).map((w) => (
        <RenderVariant key={w.id} module="website-builder" data={w} lang={lang} url={url} />
      ))}
    </>
  );
}

/** An article: its title, subtitle, date and reading time, cover, body and the website-builder
 * widgets it embeds. */
export function ArticleView({ article, lang, url }: { article: Rec; lang: string; url: string }) {
  const subtitle = tr(article.subtitle, lang);
  return (
    <article className="mx-auto max-w-3xl px-4 py-10 sm:px-6 sm:py-14" data-testid="article">
      <header>
        <h1 className="text-3xl font-bold leading-tight tracking-tight sm:text-4xl">{tr(article.title, lang)}</h1>
        {subtitle ? <p className="mt-3 text-xl leading-snug text-neutral-600">{subtitle}</p> : null}
        <ArticleMeta article={article} lang={lang} className="mt-5" />
      </header>
      <Cover data={article} className="mt-8 rounded-2xl" sizes="(min-width: 768px) 720px, 100vw" />
      <RichText value={richOf(article.description, lang)} className="mt-8 text-lg leading-relaxed text-neutral-800" />
      <RenderWidgets record={article} relation="articles-to-website-builder-module-widgets" lang={lang} url={url} />
    </article>
  );
}

/** The article a page's URL names, and what to read next under it. */
function ArticleOverview({ data, lang, url }: VariantProps) {
  const a = data._record;
  if (!a) return null;
  return (
    <>
      <ArticleView article={a} lang={lang} url={url} />
      <RelatedArticles article={a} lang={lang} />
    </>
  );
}

function ArticleProducts({ data, lang }: VariantProps) {
  const products = linked(data._record, "articles-to-ecommerce-module-products");
  if (!products.length) return null;
  return (
    <Block data={data} lang={lang}>
      <ListGrid>
        {products.map((p) => (
          <Card key={p.id} data={p} lang={lang} to={siteLink(`/ecommerce/products/${p.slug}`, lang)}>
            <Prices data={p} lang={lang} className="mt-3" />
          </Card>
        ))}
      </ListGrid>
    </Block>
  );
}

/** Declared by the server, deliberately not rendered by the public site. */
export const notRendered = [
  // The bare widget: the bundle gives it no `_list` or `_record` (those follow the variant's name).
  "default",
] as const satisfies readonly VariantKey<"blog", "article">[];

/** Every declared variant of blog widgets, and of articles (`article:…`), but `notRendered`. */
export const variants = {
  "category-list-default": CategoryList,
  "category-list-button-default": CategoryButtons,
  "category-overview-default": CategoryOverview,
  "article-list-default": ArticleList,
  "article-overview-default": ArticleOverview,
  // A pass-through wrapper in the spec: private content is gated by the article's own page.
  "article-overview-with-private-content-default": ArticleOverview,
  "article-overview-ecommerce-module-product-list-default": ArticleProducts,
  "article:default": ({ data, lang }) => <ArticleCard article={data} lang={lang} />,
  "article:overview-default": ({ data, lang, url }) => <ArticleView article={data} lang={lang} url={url} />,
  "article:overview-with-private-content-default": ({ data, lang, url }) => <ArticleView article={data} lang={lang} url={url} />,
} satisfies VariantsOf<"blog", "article", (typeof notRendered)[number]>;
