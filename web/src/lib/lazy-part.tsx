import { type ComponentType, lazy, Suspense } from "react";

type Loaded<P> = { default: ComponentType<P> };

/**
 * A part of the site loaded in its own chunk (kept out of the public entry), that is still
 * rendered on the server. In the browser it is `React.lazy` inside a Suspense boundary; in the
 * server script (`vite.ssr.config.ts` passes the module itself as `eager`) it renders at once
 * inside the same boundary — so hydration keeps the server's HTML until the chunk arrives, then
 * hydrates it, with no mismatch.
 *
 * Write it exactly as `lazyPart(() => import("./path"))` (the server build rewrites that form).
 */
export function lazyPart<P extends object>(load: () => Promise<Loaded<P>>, eager?: Loaded<P>): ComponentType<P> {
  const C = eager ? eager.default : lazy(load);
  function Part(props: P) {
    return (
      <Suspense fallback={null}>
        <C {...props} />
      </Suspense>
    );
  }
  return Part;
}
