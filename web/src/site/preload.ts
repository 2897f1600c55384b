import type { Boot } from "@/lib/boot";
import type { HostWidget } from "./content";
import type { Part } from "@/lib/lazy-part";
import type { Registry } from "./registry";
import { preloadBuiltIn } from "./builtin";
import { SiteShell } from "./page";
import { addedBy } from "./slots";

/**
 * Fetches the chunks of the parts the server rendered into this page — the modules of its
 * widgets (from the app's `registry`), its built-in screen — so the browser hydrates them in the
 * same pass as the page (see `lazyPart`). The website builder's widgets come too whenever a
 * module does: articles and products embed them.
 */
export function preloadPage(boot: Boot | null, registry: Registry): Promise<unknown> {
  if (!boot) return Promise.resolve();
  const bundle = boot.bundle;
  const modules = new Set<string>();
  const add = (widgets: HostWidget[] | undefined) => {
    for (const w of widgets ?? []) for (const e of w._externals ?? []) modules.add(addedBy(e.module, String(e.widget.variant ?? "default")));
  };
  add(bundle?.widgets);
  for (const layout of bundle?.layouts ?? []) {
    add(layout._before);
    add(layout._after);
  }
  if (modules.size) modules.add("website-builder");
  const parts: (Promise<unknown> | undefined)[] = [...modules].map((m) => (registry[m] as Partial<Part<object>> | undefined)?.preload?.());
  parts.push(preloadBuiltIn(boot.url));
  // A screen without a page of its own may be framed by the shell of a site without pages.
  if (!bundle || boot.status !== 200) parts.push(SiteShell.preload());
  return Promise.all(parts);
}
