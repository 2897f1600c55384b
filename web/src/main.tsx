import "./app.css";
import "./i18n";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, StrictMode, Suspense, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { useTranslation } from "react-i18next";
import { createBrowserRouter, Navigate, Outlet, RouterProvider, useLocation, useParams } from "react-router";
import { Toaster } from "sonner";
import { setSessionLostHandler } from "./api/http";
import { meKey } from "./account/session";
import { DEFAULT_LANGUAGE, isLanguage } from "./i18n";
import { queryClientOptions } from "./query";
import { trackView } from "./lib/analytics";
import { Live, LiveContext } from "./lib/live";
import { LiveBridge } from "./lib/live-bridge";
import { RegistryContext } from "./lib/registry";
import { registry } from "./modules";
import { SitePage } from "./site/page";

const AdminApp = lazy(() => import("./admin/admin-app"));
const queryClient = new QueryClient(queryClientOptions);
/** The one live connection of the app (public revalidation, chat events). */
const live = new Live();

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

const router = createBrowserRouter([
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
]);

setSessionLostHandler(() => {
  const had = queryClient.getQueryData(meKey);
  queryClient.setQueryData(meKey, null);
  if (had) void router.navigate("/");
});

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <LiveContext value={live}>
          <LiveBridge live={live} />
          <RegistryContext value={registry}>
            <RouterProvider router={router} />
          </RegistryContext>
        </LiveContext>
        <Toaster richColors closeButton position="top-right" />
      </QueryClientProvider>
    </StrictMode>,
  );
}
