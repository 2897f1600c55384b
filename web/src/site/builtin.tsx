import type { ReactElement } from "react";
import { lazyPart, type Part } from "@/lib/lazy-part";
import routes from "./built-in-routes.json";
import { builtInScreens } from "./slots";

// A chunk of its own, out of the public entry (the server renders it at once).
const SearchScreen = lazyPart(() => import("./search"));

/**
 * The built-in routes: URLs the site shows a screen of its own for when no page claims them, so
 * accounts work on an empty database. One list for both sides: the server answers them 200
 * (`BUILT_IN` in crates/server/src/web.rs reads this file), the client renders them here.
 */
export const BUILT_IN_ROUTES: ReadonlySet<string> = new Set(routes);

/** The site's own built-in screen; the modules register theirs (`site/slots.ts`). A route not in
 * `built-in-routes.json` has none. */
const SCREENS: Record<string, ReactElement> = {
  "/search": <SearchScreen />,
};

/** The built-in route `url` is: itself, or `{parent}/*` (a route whose last segment is a value,
 * such as an order's id in `/ecommerce/orders/*`). */
export function builtInRoute(url: string): string | undefined {
  if (BUILT_IN_ROUTES.has(url)) return url;
  const cut = url.lastIndexOf("/");
  if (cut <= 0 || cut === url.length - 1) return undefined;
  const pattern = `${url.slice(0, cut)}/*`;
  return BUILT_IN_ROUTES.has(pattern) ? pattern : undefined;
}

export function builtInScreen(url: string): ReactElement | undefined {
  const route = builtInRoute(url);
  return route ? (SCREENS[route] ?? builtInScreens[route]) : undefined;
}

/** Fetches the chunk of `url`'s built-in screen, when it has one (`site/preload.ts`). */
export function preloadBuiltIn(url: string): Promise<void> {
  const part = builtInScreen(url)?.type as Partial<Part<object>> | undefined;
  return part?.preload?.() ?? Promise.resolve();
}
