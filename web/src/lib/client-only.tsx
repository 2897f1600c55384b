import { type ReactNode, useSyncExternalStore } from "react";

const never = () => () => undefined;

/**
 * False on the server and during hydration, true after: what only the browser can show (a lazily
 * loaded part, something read from `window`) waits for it, so the first client render matches the
 * server's HTML.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}

/** `children` once hydrated; `fallback` on the server and in the first client render. */
export function ClientOnly({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  return useHydrated() ? children : fallback;
}
