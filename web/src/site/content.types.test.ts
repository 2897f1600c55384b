import type { components } from "@/api/schema";
import type { Bundle, External, HostWidget, KnownKeys, Layout, Link, Price, Rec } from "./content";

// The page-bundle types are the server's OpenAPI schemas (checked by `tsc`, so `npm run typecheck`
// is this test; `scripts/kind-check.mjs` proves a schema change fails it). The web adds only the
// entity fields it reads, which the schema leaves open, and reads nested records as `Rec`.
type S = components["schemas"];
type EntityFields = "variant" | "slug" | "className" | "anchor" | "url" | "title" | "subtitle" | "description";
type RequiredKeys<T> = { [K in KnownKeys<T>]-?: object extends Pick<T, K> ? never : K }[KnownKeys<T>];

describe("the page-bundle types", () => {
  it("are the server's schemas", () => {
    // What the site reads is a valid server shape…
    expectTypeOf<Rec>().toExtend<S["HostBundleRecord"]>();
    expectTypeOf<Link>().toExtend<S["HostBundleLink"]>();
    expectTypeOf<External>().toExtend<S["HostBundleExternal"]>();
    expectTypeOf<HostWidget>().toExtend<S["HostBundleWidget"]>();
    expectTypeOf<Layout>().toExtend<S["HostBundleLayout"]>();
    expectTypeOf<Bundle>().toExtend<S["HostPageBundle"]>();
    expectTypeOf<Price>().toEqualTypeOf<S["EcommerceBundlePrice"]>();
    // …with exactly the schema's fields (plus the entity fields), and the same ones required.
    expectTypeOf<Exclude<KnownKeys<Rec>, EntityFields>>().toEqualTypeOf<KnownKeys<S["HostBundleRecord"]>>();
    expectTypeOf<Exclude<KnownKeys<Link>, EntityFields>>().toEqualTypeOf<KnownKeys<S["HostBundleLink"]>>();
    expectTypeOf<Exclude<KnownKeys<External>, EntityFields>>().toEqualTypeOf<KnownKeys<S["HostBundleExternal"]>>();
    expectTypeOf<Exclude<KnownKeys<HostWidget>, EntityFields>>().toEqualTypeOf<KnownKeys<S["HostBundleWidget"]>>();
    expectTypeOf<Exclude<KnownKeys<Layout>, EntityFields>>().toEqualTypeOf<KnownKeys<S["HostBundleLayout"]>>();
    expectTypeOf<KnownKeys<Bundle>>().toEqualTypeOf<KnownKeys<S["HostPageBundle"]>>();
    expectTypeOf<RequiredKeys<Rec>>().toEqualTypeOf<RequiredKeys<S["HostBundleRecord"]>>();
    expectTypeOf<RequiredKeys<Link>>().toEqualTypeOf<RequiredKeys<S["HostBundleLink"]>>();
    expectTypeOf<RequiredKeys<External>>().toEqualTypeOf<RequiredKeys<S["HostBundleExternal"]>>();
    expectTypeOf<RequiredKeys<HostWidget>>().toEqualTypeOf<RequiredKeys<S["HostBundleWidget"]>>();
    expectTypeOf<RequiredKeys<Layout>>().toEqualTypeOf<RequiredKeys<S["HostBundleLayout"]>>();
    expectTypeOf<RequiredKeys<Bundle>>().toEqualTypeOf<RequiredKeys<S["HostPageBundle"]>>();
    // Nested records read as `Rec`.
    expectTypeOf<Link["_to"]>().toEqualTypeOf<Rec>();
    expectTypeOf<NonNullable<Rec["_list"]>[number]>().toEqualTypeOf<Rec>();
    expectTypeOf<NonNullable<Rec["_rel"]>[string]>().toEqualTypeOf<Link[]>();
    expectTypeOf<HostWidget["_externals"][number]["widget"]>().toEqualTypeOf<Rec>();
    expectTypeOf<Bundle["layouts"][number]["_before"]>().toEqualTypeOf<HostWidget[]>();
    expectTypeOf<Rec["_prices"]>().toEqualTypeOf<S["HostBundleRecord"]["_prices"]>();
  });
});
