import "./app.css";
import "./i18n";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, StrictMode, Suspense, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { useTranslation } from "react-i18next";
import { createBrowserRouter, Navigate, Outlet, RouterProvider, useLocation, useParams } from "react-router";
import { Toaster } from "sonner";
import { setSessionLostHandler } from "./api/http";
import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./account/forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "./account/screens";
import { meKey } from "./account/session";
import { DEFAULT_LANGUAGE, isLanguage } from "./i18n";
import { queryClientOptions } from "./query";
import { HomePlaceholder, SiteShell } from "./site/shell";

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

const AUTH = "rbac/subject/authentication";
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
      {
        element: <SiteShell />,
        children: [
          { index: true, element: <HomePlaceholder /> },
          { path: `${AUTH}/select-method`, element: <SelectMethodScreen /> },
          { path: `${AUTH}/email-and-password/registration`, element: <RegistrationScreen /> },
          { path: `${AUTH}/email-and-password/forgot-password`, element: <ForgotPasswordScreen /> },
          { path: `${AUTH}/email-and-password/reset-password`, element: <ResetPasswordScreen /> },
          { path: `${AUTH}/logout`, element: <LogoutScreen /> },
          { path: "rbac/subjects/settings", element: <SettingsScreen /> },
          { path: "*", element: <HomePlaceholder /> },
        ],
      },
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
        <RouterProvider router={router} />
        <Toaster richColors closeButton position="top-right" />
      </QueryClientProvider>
    </StrictMode>,
  );
}
