import { createContext, useContext, type ComponentType } from "react";
import { useTranslation } from "@/i18n";
import type { Rec } from "./content";
import { addedBy } from "./slots";

/** What a variant component gets: its record and the page's language and path. */
export interface VariantProps {
  data: Rec;
  lang: string;
  /** The page path without the language (`/blog/articles/x`). */
  url: string;
}
export type Variant = ComponentType<VariantProps>;
/**
 * `variant → component` for one module's widgets (and `entity:variant` for other entities). A
 * module's own map is typed against the server's declared variants with `VariantsOf`
 * (`site/variants.ts`).
 */
export type ModuleVariants = Record<string, Variant>;
/** What a module's part gets: the variant's key (`variant` or `entity:variant`) and its module. */
export type ModulePartProps = VariantProps & { module: string; variant: string };
/**
 * A module's variants loaded in their own chunk: one component that renders `variant` (the
 * `variant` or `entity:variant` key) from them. `variantsPart` makes it.
 */
export type ModulePart = ComponentType<ModulePartProps>;
/** `module → its variants` (or their part): the variant registry (ARCHITECTURE §7). */
export type Registry = Record<string, ModuleVariants | ModulePart>;

/**
 * The default export of a module's part (`modules/<module>/part.ts`): its variants as one
 * component. `notRendered`: declared variants the public site deliberately does not show (they
 * render nothing, without the development marker).
 */
export function variantsPart(variants: ModuleVariants, notRendered: readonly string[] = []): ModulePart {
  return function Variants({ module, variant, ...props }: ModulePartProps) {
    const C = variants[variant];
    if (C) return <C {...props} />;
    return notRendered.includes(variant) ? null : <UnknownVariant module={module} variant={variant} />;
  };
}

/**
 * What a variant no component renders shows: nothing, but in development builds a small dashed
 * box naming the module, entity and variant, so a missing component is seen, not guessed at.
 */
export function UnknownVariant({ module, variant }: { module: string; variant: string }) {
  // Read while rendering (not once at load), so a test can stub it; production builds drop the box.
  if (!import.meta.env.DEV) return null;
  return <UnknownVariantBox module={module} variant={variant} />;
}

function UnknownVariantBox({ module, variant: key }: { module: string; variant: string }) {
  const { t } = useTranslation();
  const split = key.indexOf(":");
  const entity = split < 0 ? "widget" : key.slice(0, split);
  const variant = key.slice(split + 1);
  return (
    <div data-testid="unknown-variant" data-module={module} data-entity={entity} data-variant={variant} className="mx-auto my-4 max-w-7xl rounded-md border-2 border-dashed border-amber-500 p-4 font-mono text-sm text-amber-800">
      {t("site.unknownVariant", { module, entity, variant })}
    </div>
  );
}

export const RegistryContext = createContext<Registry>({});

/**
 * Renders `data` (a module's widget, or another entity with `entity`) by its variant. A variant no
 * component renders shows nothing (in development builds, a marker naming it: `UnknownVariant`).
 */
export function RenderVariant({ module, entity, data, lang, url }: VariantProps & { module: string; entity?: string }) {
  const registry = useContext(RegistryContext);
  const variant = data.variant ?? "default";
  const key = entity ? `${entity}:${variant}` : variant;
  // A variant a higher module added to this widget is that module's to render.
  const owner = entity ? module : addedBy(module, variant);
  const variants = registry[owner];
  if (typeof variants === "function") {
    const Part = variants;
    return <Part module={owner} variant={key} data={data} lang={lang} url={url} />;
  }
  const C = variants?.[key];
  if (!C) return <UnknownVariant module={owner} variant={key} />;
  return <C data={data} lang={lang} url={url} />;
}
