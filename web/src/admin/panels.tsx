import { lazy, Suspense } from "react";
import { type RecordPanelProps, registerAdmin } from "./registry";

export type { RecordPanelProps } from "./registry";

// The page builder (and drag and drop) loads with a page's form.
const LazyPageBuilder = lazy(() => import("./page-builder"));

function PageBuilder(props: RecordPanelProps) {
  return (
    <Suspense fallback={null}>
      <LazyPageBuilder {...props} />
    </Suspense>
  );
}

/** The admin's own record panel; the modules add theirs (`registerAdmin`). Kept apart from
 * `views.tsx`, which the form must not import. */
registerAdmin({ panels: { "host.page": PageBuilder } });

export { recordPanels } from "./registry";
