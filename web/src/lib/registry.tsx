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
/** `module → its variants`: the variant registry (ARCHITECTURE §7). */
export type Registry = Record<string, ModuleVariants>;

export const RegistryContext = createContext<Registry>({});

/** Renders `data` (a module's widget, or another entity with `entity`) by its variant; an unknown variant renders nothing. */
export function RenderVariant({ module, entity, data, lang, url }: VariantProps & { module: string; entity?: string }) {
  const registry = useContext(RegistryContext);
  const variant = data.variant ?? "default";
  const C = registry[module]?.[entity ? `${entity}:${variant}` : variant];
  if (!C) return null;
  return <C data={data} lang={lang} url={url} />;
}
