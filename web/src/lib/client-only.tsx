import { type ReactNode, startTransition, useEffect, useState } from "react";

/**
 * Where the app runs: rendering on the server, hydrating the server's HTML in the browser, or
 * live in the browser (after hydration, or on a page the browser renders from nothing). "Server"
 * is where there is no `document` (the engine `stoa` renders in): a `renderToString` in a test's
 * jsdom renders as the browser does.
 */
let phase: "server" | "hydrating" | "live" = typeof document === "undefined" ? "server" : "live";

/** Called just before `hydrateRoot`: until `hydrationDone`, the browser renders what the server did. */
export function beginHydration(): void {
  phase = "hydrating";
}

/** Called once hydration has committed (an effect of the app's root, `MarkHydrated`). */
export function hydrationDone(): void {
  if (phase === "hydrating") phase = "live";
}

/** True once the browser has taken the page over, or had none to take over; false on the server. */
export function isLive(): boolean {
  return phase === "live";
}

/**
 * False on the server and during hydration, true after: what only the browser can show (a lazily
 * loaded part, something read from `window`) waits for it, so the first client render matches the
 * server's HTML.
 *
 * The switch comes after hydration's commit, as a transition: the parts that wait for it render in
 * slices that yield to the browser. (With `useSyncExternalStore` React re-rendered every one of them
 * synchronously inside the commit, with their effects: one long task on a phone.)
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(isLive);
  useEffect(() => {
    if (!hydrated) startTransition(() => setHydrated(true));
  }, [hydrated]);
  return hydrated;
}

/** `children` once hydrated; `fallback` on the server and in the first client render. */
export function ClientOnly({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  return useHydrated() ? children : fallback;
}
