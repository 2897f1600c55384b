/**
 * The public site rendered to HTML, for `stoa` (crate `stoa-render`) to run in its embedded engine.
 * `render(boot, path)` takes the page's boot data as JSON (the very text the browser finds in
 * `<script id="stoa-page">`) and the requested path (`/ru/blog`), and returns the markup of `#root`,
 * which the browser then hydrates (`main.tsx`).
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

export function render(input: string, path: string): string {
  const boot = JSON.parse(input) as Boot;
  setBoot(boot);
  if (isLanguage(boot.lang)) void i18n.changeLanguage(boot.lang);
  const queryClient = new QueryClient(queryClientOptions);
  try {
    return renderToString(
      <AppProviders queryClient={queryClient} live={new Live()}>
        <StaticRouter location={path}>
          <AppRoutes />
        </StaticRouter>
      </AppProviders>,
    );
  } finally {
    queryClient.clear();
    setBoot(null);
  }
}
