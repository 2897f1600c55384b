import { type QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { lazy, type ReactNode, StrictMode, Suspense, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { Navigate, Outlet, type RouteObject, useLocation, useNavigate, useParams, useRoutes } from "react-router";
import { Toaster } from "sonner";
import { meKey } from "./account/session";
import { setSessionLostHandler } from "./api/http";
import { DEFAULT_LANGUAGE, isLanguage } from "./i18n";
import { trackView } from "./lib/analytics";
import { type Live, LiveContext } from "./lib/live";
import { LiveBridge } from "./lib/live-bridge";
import { RegistryContext } from "./lib/registry";
import { registry } from "./modules";
import { SitePage } from "./site/page";

const AdminApp = lazy(() => import("./admin/admin-app"));

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

/** Everything around the router: queries, the live connection, the variant registry, toasts. */
export function AppProviders({ queryClient, live, children }: { queryClient: QueryClient; live: Live; children: ReactNode }) {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <LiveContext value={live}>
          <LiveBridge live={live} />
          <RegistryContext value={registry}>{children}</RegistryContext>
        </LiveContext>
        <Toaster richColors closeButton position="top-right" />
      </QueryClientProvider>
    </StrictMode>
  );
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
    </>
  );
}
