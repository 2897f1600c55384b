// The variants the server declares per entity (Rust `.variants(&[…])`), read from the generated
// OpenAPI types (`npm run api:types`), so each module's variants map is checked against them: a
// declared variant with no component, or a component for a variant nobody declares, stops
// `tsc`. Types only: nothing here reaches the JavaScript.
import type { components } from "@/api/schema";
import type { Variant } from "./registry";

type Schemas = components["schemas"];

/** `website-builder` → `WebsiteBuilder`: how the schema names spell modules and entities. */
type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;

/**
 * The declared variants of entity `E` of module `M` (`DeclaredVariant<"blog", "article">` is
 * `"default" | "overview-default" | …`). A name with no schema, or a schema without variants,
 * gives a key no map has, so the mistake shows as a missing property rather than passing.
 */
export type DeclaredVariant<M extends string, E extends string> = `${Pascal<M>}${Pascal<E>}` extends infer N extends keyof Schemas
  ? Schemas[N] extends { variant: infer V extends string }
    ? V
    : `(no variants declared on ${M}.${E})`
  : `(no schema for ${M}.${E})`;

/**
 * The keys of module `M`'s variants map: its widget's variants, and `entity:variant` for each of
 * `Entities` (other entities of the module the map renders, `RenderVariant`'s `entity`).
 */
export type VariantKey<M extends string, Entities extends string = never> =
  | DeclaredVariant<M, "widget">
  | { [E in Entities]: `${E}:${DeclaredVariant<M, E>}` }[Entities];

/**
 * Module `M`'s variants map: a component for every key of `VariantKey<M, Entities>` except the
 * `NotRendered` ones (declared, deliberately not shown by the public site), and no other key.
 * Use it with `satisfies`, so the map keeps its own type:
 *
 * ```ts
 * export const notRendered = ["default"] as const satisfies readonly VariantKey<"blog">[];
 * export const variants = { … } satisfies VariantsOf<"blog", never, (typeof notRendered)[number]>;
 * ```
 */
export type VariantsOf<M extends string, Entities extends string = never, NotRendered extends VariantKey<M, Entities> = never, Others extends VariantKey<M, Entities> = never> = Record<
  Exclude<VariantKey<M, Entities>, NotRendered | Others>,
  Variant
>;

/**
 * The variants of module `M`'s widget that module `By` adds (the server's `ModuleDef::variants`;
 * the original names them after it: `subject-list-social-module-profile-default`). `By` renders
 * them in its own part and says so in its site part (`SitePart.adds`); `M`'s map leaves them out
 * (`VariantsOf`'s `Others`).
 */
export type AddedBy<M extends string, By extends string> = Extract<DeclaredVariant<M, "widget">, `${string}-${By}-module-${string}`>;
