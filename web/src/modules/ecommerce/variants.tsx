import { linked, tr, type Rec } from "@/site/content";
import { siteLink } from "@/site/link";
import { RenderVariant, type VariantProps } from "@/site/registry";
import type { VariantKey, VariantsOf } from "@/site/variants";
import { Block, Body, Card, Cover, ListGrid, Prices } from "@/site/blocks";
import { AddToCart, OrdersList } from "./cart";
import { SignInPrompt } from "./screen";
import { AuthGate, GateSkeleton } from "@/site/gate";
import { TreeDonation } from "./donation";
import { CardDonation } from "./card-donation";
import { ProductBuy } from "./product-buy";
import { useShopT } from "./i18n";

const link = (kind: string, r: Rec, lang: string) => siteLink(`/ecommerce/${kind}/${r.slug}`, lang);

function Products({ items, lang }: { items: Rec[]; lang: string }) {
  const t = useShopT();
  if (!items.length) return <p className="text-neutral-600">{t("site.noItems")}</p>;
  return (
    <ListGrid>
      {items.map((p) => (
        <Card key={p.id} data={p} lang={lang} to={link("products", p, lang)}>
          <Prices data={p} lang={lang} className="mt-3" />
          {p._prices?.length ? <AddToCart productId={p.id} className="mt-3" /> : null}
        </Card>
      ))}
    </ListGrid>
  );
}

function ProductList({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <Products items={data._list ?? []} lang={lang} />
    </Block>
  );
}

function Simple({ kind, data, lang }: VariantProps & { kind: string }) {
  return (
    <Block data={data} lang={lang}>
      <ListGrid>
        {(data._list ?? []).map((r) => (
          <Card key={r.id} data={r} lang={lang} to={link(kind, r, lang)} />
        ))}
      </ListGrid>
    </Block>
  );
}

export function ProductView({ product, lang, url }: { product: Rec; lang: string; url: string }) {
  return (
    <article className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-2 lg:px-8">
      <Cover data={product} className="rounded-3xl" sizes="(min-width: 1024px) 50vw, 100vw" />
      <div>
        <h1 className="text-4xl font-bold tracking-tight">{tr(product.title, lang)}</h1>
        {tr(product.shortDescription, lang) ? <p className="mt-3 text-lg text-neutral-600">{tr(product.shortDescription, lang)}</p> : null}
        <ProductBuy product={product} lang={lang} />
        <Body data={product} lang={lang} />
        {linked(product, "products-to-website-builder-module-widgets").map((w) => (
          <RenderVariant key={w.id} module="website-builder" data={w} lang={lang} url={url} />
        ))}
      </div>
    </article>
  );
}

function ProductOverview({ data, lang, url }: VariantProps) {
  return data._record ? <ProductView product={data._record} lang={lang} url={url} /> : null;
}

function Overview({ data, lang, relation }: VariantProps & { relation: string }) {
  const r = data._record;
  if (!r) return null;
  return (
    <Block data={{ ...data, title: r.title }} lang={lang}>
      <Body data={r} lang={lang} />
      <div className="mt-8">
        <Products items={linked(r, relation)} lang={lang} />
      </div>
    </Block>
  );
}

function Donation({ data, lang }: VariantProps) {
  const products = linked(data, "widgets-to-products");
  return (
    <section id={data.anchor || undefined} className="scroll-mt-20 bg-emerald-950 px-4 pb-16 pt-4" data-variant={data.variant}>
      {products.map((p) => (
        <TreeDonation key={p.id} product={p} lang={lang} />
      ))}
    </section>
  );
}

/** The donation's card variant: the provider's own card form opens over the page (SPEC §2). */
function CardDonationBlock({ data, lang }: VariantProps) {
  const products = linked(data, "widgets-to-products");
  return (
    <section id={data.anchor || undefined} className="scroll-mt-20 bg-emerald-950 px-4 py-16" data-variant={data.variant}>
      {tr(data.title, lang) ? <h2 className="mb-8 text-center text-3xl font-bold text-white">{tr(data.title, lang)}</h2> : null}
      {products.map((p) => (
        <CardDonation key={p.id} product={p} lang={lang} />
      ))}
    </section>
  );
}

/** The visitor's own orders (a guest's too), or a sign-in prompt for someone without a session. */
function OrderList({ data, lang }: VariantProps) {
  const t = useShopT();
  return (
    <Block data={data} lang={lang}>
      <div data-testid="order-list-widget">
        <AuthGate skeleton={<GateSkeleton className="px-0" />} fallback={<SignInPrompt text={t("shop.signInForOrders")} />}>
          <OrdersList lang={lang} />
        </AuthGate>
      </div>
    </Block>
  );
}

/** Declared by the server, deliberately not rendered by the public site. */
export const notRendered = [] as const satisfies readonly VariantKey<"ecommerce">[];

/** The variant ecommerce adds to rbac's account widget, deliberately not shown: subjects are
 * private, so the public bundle has no subject to list the products of. */
export { rbacAdded as rbacNotRendered } from "./added";

/** Every declared variant of ecommerce widgets but `notRendered`. */
export const variants = {
  default: ProductList,
  "product-list-default": ProductList,
  "product-overview-default": ProductOverview,
  "category-list-default": (p) => <Simple {...p} kind="categories" />,
  "category-overview-default": (p) => <Overview {...p} relation="categories-to-products" />,
  "store-list-default": (p) => <Simple {...p} kind="stores" />,
  "store-overview-default": (p) => <Overview {...p} relation="stores-to-products" />,
  "for-planet-products-list-block-default": Donation,
  "for-planet-products-list-block-card-default": CardDonationBlock,
  "order-list-default": OrderList,
} satisfies VariantsOf<"ecommerce", never, (typeof notRendered)[number]>;
