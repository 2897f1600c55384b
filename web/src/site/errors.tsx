import { Component, type ErrorInfo, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { request } from "@/api/http";
import { Button } from "@/ui/button";

/** A render failure inside one widget: a dashed red box with the message; the page goes on. */
export class WidgetBoundary extends Component<{ children: ReactNode; name?: string }, { error: Error | null }> {
  state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  componentDidCatch(error: Error, info: ErrorInfo) {
    console.warn("widget render failed", this.props.name, error.message, info.componentStack?.split("\n")[1]);
  }
  render() {
    if (this.state.error) {
      return (
        <div role="alert" data-testid="widget-error" className="mx-auto my-4 max-w-7xl rounded-md border-2 border-dashed border-red-500 p-4 text-sm text-red-700">
          {this.state.error.message || "Render failed"}
        </div>
      );
    }
    return this.props.children;
  }
}

/** The error screen without a `/500` page: the message (or a default) and Reload. */
export function ErrorFallback({ message }: { message?: string }) {
  const { t } = useTranslation();
  const reload = async () => {
    await request("GET", "/api/revalidation/revalidate", { query: { path: "/", type: "layout" } }).catch(() => undefined);
    window.location.reload();
  };
  return (
    <section className="mx-auto flex max-w-7xl flex-col items-center gap-4 px-4 py-24 text-center">
      <h1 className="text-2xl font-semibold">{message || t("site.error")}</h1>
      <Button onClick={() => void reload()}>{t("site.reload")}</Button>
    </section>
  );
}
