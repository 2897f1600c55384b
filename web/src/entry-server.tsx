/**
 * The public site rendered to HTML, for `stoa` (crate `stoa-render`) to run in its embedded engine.
 * `render(input)` takes the page's boot data as JSON (what the browser finds in
 * `<script id="stoa-page">`) plus the requested path, and returns the markup of `#root`, which the
 * browser then hydrates (`main.tsx`).
 */
import "./ssr/env";
import { QueryClient } from "@tanstack/react-query";
import { renderToString } from "react-dom/server";
import { StaticRouter } from "react-router";
import { AppProviders, AppRoutes } from "./app";
import i18n, { isLanguage } from "./i18n";
import { type Boot, setBoot } from "./lib/boot";
import { Live } from "./lib/live";
import { queryClientOptions } from "./query";

export interface RenderInput extends Boot {
  /** The requested path with its query, `/ru/blog?page=2`. */
  path: string;
}

export function render(input: string): string {
  const boot = JSON.parse(input) as RenderInput;
  setBoot(boot);
  if (isLanguage(boot.lang)) void i18n.changeLanguage(boot.lang);
  const queryClient = new QueryClient(queryClientOptions);
  try {
    return renderToString(
      <AppProviders queryClient={queryClient} live={new Live()}>
        <StaticRouter location={boot.path}>
          <AppRoutes />
        </StaticRouter>
      </AppProviders>,
    );
  } finally {
    queryClient.clear();
    setBoot(null);
  }
}
