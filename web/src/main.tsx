import "./app.css";
import "./i18n";
import { QueryClient } from "@tanstack/react-query";
import { startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { AppProviders, AppRoutes } from "./app";
import { queryClientOptions } from "./query";
import { Live } from "./lib/live";
import { beginHydration } from "./lib/client-only";
import { boot } from "./lib/boot";
import { preloadPage } from "./site/preload";
import { registry } from "./modules";
import { followCounterWithoutLive } from "./modules/ecommerce/counter";

const queryClient = new QueryClient(queryClientOptions);
/** The one live connection of the app (public revalidation, chat events). */
const live = new Live();
// Without a live connection, the campaign counter is asked for now and then instead.
followCounterWithoutLive(queryClient, { connected: () => live.connected });

/**
 * Resolves in the task after the browser's first frame: the server's HTML is painted before the
 * page's parts are fetched and hydrated, so none of that work delays the first paint (a page
 * opened in a background tab hydrates when it is shown).
 */
function afterFirstPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

const root = document.getElementById("root");
if (root) {
  const app = (
    <AppProviders queryClient={queryClient} live={live}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
  // A public page arrives rendered by the server (`entry-server.tsx`): it is hydrated, not redrawn,
  // once it is painted and the chunks of the parts it shows are here (`site/preload.ts`).
  if (root.firstElementChild) {
    void afterFirstPaint()
      .then(() => preloadPage(boot, registry))
      .catch(() => undefined)
      // As a transition, hydration yields to the browser every few milliseconds instead of
      // holding the main thread for the whole page (input stays responsive on slow phones).
      .then(() => {
        beginHydration();
        startTransition(() => void hydrateRoot(root, app));
      });
  } else createRoot(root).render(app);
}
