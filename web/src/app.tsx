import { type QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { lazy, type ReactNode, StrictMode, Suspense, useEffect } from "react";
import { useTranslation } from "@/i18n";
import { Navigate, Outlet, type RouteObject, useLocation, useNavigate, useParams, useRoutes } from "react-router";
import { meKey } from "./lib/session";
import { setSessionLostHandler } from "./api/client";
import { DEFAULT_LANGUAGE, isLanguage } from "./i18n";
import { trackView } from "./lib/analytics";
import { ClientOnly, hydrationDone } from "./lib/client-only";
import { type Live, LiveContext } from "./lib/live";
import { LiveBridge } from "./lib/live-bridge";
import { RegistryContext } from "./site/registry";
import { registerSite } from "./site/slots";
import { registry } from "./modules";
import { siteParts } from "./modules/site";
import { SitePage } from "./site/page";

// Every module's part of the site (built-in screens, header buttons, live events), before anything renders.
registerSite(...siteParts);

const AdminApp = lazy(() => import("./admin-entry"));
// The browser's alone, loaded after hydration: the toasts. (The live connection is not deferred:
// it opens as the page hydrates, so a change made meanwhile is not missed.)
const Toaster = lazy(() => import("sonner").then((m) => ({ default: m.Toaster })));

/** `children` loaded in the browser after hydration (nothing on the server). */
function Later({ children }: { children: ReactNode }) {
  return (
    <ClientOnly>
      <Suspense fallback={null}>{children}</Suspense>
    </ClientOnly>
  );
}

/** Sets the UI language from the URL, and sends paths without one to the default language. */
function Language() {
  const { lang } = useParams();
  const { i18n } = useTranslation();
  const location = useLocation();
  useEffect(() => {
    if (isLanguage(lang) && i18n.language !== lang) void i18n.changeLanguage(lang);
    if (isLanguage(lang)) document.documentElement.lang = lang;
  }, [lang, i18n]);
  // A page view on the first load and on each route change (cookie-free, first-party).
  useEffect(() => {
    if (isLanguage(lang)) trackView(location.pathname, lang);
  }, [lang, location.pathname]);
  if (!isLanguage(lang)) return <Navigate replace to={`/${DEFAULT_LANGUAGE}${location.pathname === "/" ? "" : location.pathname}${location.search}`} />;
  return <Outlet />;
}

/**
 * The app's routes, the same on the server (public pages are rendered there, `entry-server.tsx`)
 * and in the browser (`main.tsx` hydrates them).
 */
export const routes: RouteObject[] = [
  {
    path: "/admin/:module?/:entity?",
    element: (
      <Suspense fallback={null}>
        <AdminApp />
      </Suspense>
    ),
  },
  {
    path: "/:lang?",
    element: <Language />,
    children: [
      { index: true, element: <SitePage /> },
      { path: "*", element: <SitePage /> },
    ],
  },
];

/** Toasts, labelled in the page's language (the region and each close button). */
function Toasts() {
  const { t } = useTranslation();
  return <Toaster richColors closeButton position="top-right" containerAriaLabel={t("site.notifications")} toastOptions={{ closeButtonAriaLabel: t("site.closeToast") }} />;
}

/** Everything around the router: queries, the live connection, the variant registry, toasts. */
export function AppProviders({ queryClient, live, children }: { queryClient: QueryClient; live: Live; children: ReactNode }) {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <LiveContext value={live}>
          <LiveBridge live={live} />
          <RegistryContext value={registry}>{children}</RegistryContext>
        </LiveContext>
        <Later>
          <Toasts />
        </Later>
      </QueryClientProvider>
    </StrictMode>
  );
}

/**
 * Marks the document once React has taken it over (`<html data-hydrated>`): before that, a server-
 * rendered page shows but does not react. Tests wait for it; styles may use it.
 */
function MarkHydrated() {
  useEffect(() => {
    hydrationDone();
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}

/** A session that ends under the app (a 401 on a signed-in call) forgets the account and, when one was signed in, goes home. */
function SessionLost() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  useEffect(() => {
    setSessionLostHandler(() => {
      const had = queryClient.getQueryData(meKey);
      queryClient.setQueryData(meKey, null);
      if (had) void navigate("/");
    });
  }, [queryClient, navigate]);
  return null;
}

/**
 * The routed app, inside a router: `BrowserRouter` in the browser, `StaticRouter` on the server —
 * both render one `Router`, so the two trees (and React's `useId` values) are the same.
 */
export function AppRoutes() {
  return (
    <>
      {useRoutes(routes)}
      <SessionLost />
      <MarkHydrated />
    </>
  );
}
