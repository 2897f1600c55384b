import type { ReactNode } from "react";
import { useTranslation } from "@/i18n";
import { focusTarget } from "./focus";

/** The id of every public page's main content (the skip link's target). */
export const MAIN_ID = "main";

/**
 * 'Skip to content': the first thing Tab reaches on a public page, shown only then; it moves the
 * focus to the main content (past the header's links), without changing the address.
 */
export function SkipLink() {
  const { t } = useTranslation();
  return (
    <a
      href={`#${MAIN_ID}`}
      data-testid="skip-link"
      onClick={(e) => {
        const main = document.getElementById(MAIN_ID);
        if (!main) return;
        e.preventDefault();
        main.scrollIntoView();
        focusTarget(main);
      }}
      className="sr-only rounded-md bg-emerald-950 font-semibold text-white focus:not-sr-only focus:fixed focus:left-4 focus:top-3 focus:z-[60] focus:px-4 focus:py-3"
    >
      {t("site.skipToContent")}
    </a>
  );
}

/** The page's main landmark, the skip link's target (focusable by script only). */
export function Main({ children }: { children: ReactNode }) {
  return (
    <main id={MAIN_ID} tabIndex={-1} data-focus-target className="flex-1 scroll-mt-16">
      {children}
    </main>
  );
}
