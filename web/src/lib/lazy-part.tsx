import { type ComponentType, lazy, Suspense, useState } from "react";
import { isLive } from "./client-only";

type Loaded<P> = { default: ComponentType<P> };

/** A part made by `lazyPart`; `preload()` fetches its chunk ahead of rendering it. */
export type Part<P> = ComponentType<P> & { preload(): Promise<void> };

/**
 * A part of the site loaded in its own chunk (kept out of the public entry), that is still
 * rendered on the server: the server script has the module at once (`vite.ssr.config.ts` passes
 * it as `eager`) and renders it in place.
 *
 * In the browser a part whose chunk is here renders in place too, so a page the server rendered
 * hydrates as one tree, in one pass, exactly as the server made it — the browser preloads the
 * parts a page shows before hydrating it (`site/preload.ts`). A part still loading suspends: during
 * hydration without a boundary of its own (the page keeps the server's HTML until it is here),
 * afterwards (a page reached by a link) inside a Suspense boundary that shows nothing meanwhile.
 *
 * Write it exactly as `lazyPart(() => import("./path"))` (the server build rewrites that form).
 */
export function lazyPart<P extends object>(load: () => Promise<Loaded<P>>, eager?: Loaded<P>): Part<P> {
  let loaded = eager;
  let loading: Promise<Loaded<P>> | undefined;
  const fetch = () =>
    (loading ??= load().then((m) => {
      loaded = m;
      return m;
    }));
  const Lazy = lazy(fetch);
  function Part(props: P) {
    // Chosen once per mount: changing between them would remount what is inside. (Read, not
    // subscribed to: a part is not rendered again when hydration ends.)
    const [mode] = useState(() => (loaded ? "ready" : isLive() ? "boundary" : "hydrating"));
    if (mode === "ready" && loaded) return <loaded.default {...props} />;
    if (mode === "hydrating") return <Lazy {...props} />;
    return (
      <Suspense fallback={null}>
        <Lazy {...props} />
      </Suspense>
    );
  }
  Part.preload = () => fetch().then(() => undefined);
  return Part;
}
