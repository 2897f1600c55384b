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
import { RegistryContext } from "./lib/registry";
import { registry } from "./modules";
import { SitePage } from "./site/page";

const AdminApp = lazy(() => import("./admin/admin-app"));
const queryClient = new QueryClient(queryClientOptions);

/** Sets the UI language from the URL, and sends paths without one to the default language. */
function Language() {
  const { lang } = useParams();
  const { i18n } = useTranslation();
  const location = useLocation();
  useEffect(() => {
    if (isLanguage(lang) && i18n.language !== lang) void i18n.changeLanguage(lang);
    if (isLanguage(lang)) document.documentElement.lang = lang;
  }, [lang, i18n]);
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
        <RegistryContext value={registry}>
          <RouterProvider router={router} />
        </RegistryContext>
        <Toaster richColors closeButton position="top-right" />
      </QueryClientProvider>
    </StrictMode>,
  );
}
