import { createContext, useContext, type ComponentType } from "react";
import type { Rec } from "./content";

/** What a variant component gets: its record and the page's language and path. */
export interface VariantProps {
  data: Rec;
  lang: string;
  /** The page path without the language (`/blog/articles/x`). */
  url: string;
}
export type Variant = ComponentType<VariantProps>;
/** `variant → component` for one module's widgets (and `entity:variant` for other entities). */
export type ModuleVariants = Record<string, Variant>;
/**
 * A module's variants loaded in their own chunk: one component that renders `variant` (the
 * `variant` or `entity:variant` key) from them, or nothing. `variantsPart` makes it.
 */
export type ModulePart = ComponentType<VariantProps & { variant: string }>;
/** `module → its variants` (or their part): the variant registry (ARCHITECTURE §7). */
export type Registry = Record<string, ModuleVariants | ModulePart>;

/** The default export of a module's part (`modules/<module>/part.ts`): its variants as one component. */
export function variantsPart(variants: ModuleVariants): ModulePart {
  return function Variants({ variant, ...props }: VariantProps & { variant: string }) {
    const C = variants[variant];
    return C ? <C {...props} /> : null;
  };
}

export const RegistryContext = createContext<Registry>({});

/** Renders `data` (a module's widget, or another entity with `entity`) by its variant; an unknown variant renders nothing. */
export function RenderVariant({ module, entity, data, lang, url }: VariantProps & { module: string; entity?: string }) {
  const registry = useContext(RegistryContext);
  const variant = data.variant ?? "default";
  const key = entity ? `${entity}:${variant}` : variant;
  const variants = registry[module];
  if (typeof variants === "function") {
    const Part = variants;
    return <Part variant={key} data={data} lang={lang} url={url} />;
  }
  const C = variants?.[key];
  if (!C) return null;
  return <C data={data} lang={lang} url={url} />;
}
