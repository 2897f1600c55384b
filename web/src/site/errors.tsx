import { Component, type ErrorInfo, type ReactNode } from "react";
import { useTranslation } from "@/i18n";

/** The dashed red box in the page's language; the error itself is in `data-error` (and the console). */
function WidgetError({ error }: { error: Error }) {
  const { t } = useTranslation();
  return (
    <div role="alert" data-testid="widget-error" data-error={error.message} className="mx-auto my-4 max-w-7xl rounded-md border-2 border-dashed border-red-500 p-4 text-sm text-red-700">
      {t("site.renderFailed")}
    </div>
  );
}

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
    if (this.state.error) return <WidgetError error={this.state.error} />;
    return this.props.children;
  }
}
