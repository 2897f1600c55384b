import { LANGUAGES, useTranslation } from "@/i18n";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { AccountMenu, CartButton, ChatButton } from "@/site/header-actions";
import { useLink } from "./link";
import { Main, SkipLink } from "./skip-link";

const YEAR = new Date().getFullYear();

/** The frame of screens on a site that has no pages yet (an empty database). */
export function SiteShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const link = useLink();
  const { lang } = useParams();
  return (
    <div className="flex min-h-screen flex-col">
      <SkipLink />
      <header className="border-b border-border">
        <div className="mx-auto flex max-w-7xl items-center gap-4 px-4 py-3">
          <Link to={link("")} className="text-lg font-semibold">
            Stoa
          </Link>
          <nav aria-label={t("site.language")} className="ml-auto flex gap-2 text-sm">
            {LANGUAGES.map((l) => (
              <Link key={l} to={`/${l}`} aria-current={l === lang ? "true" : undefined} className={l === lang ? "font-semibold" : ""}>
                {l.toUpperCase()}
              </Link>
            ))}
          </nav>
          <ChatButton />
          <CartButton />
          <AccountMenu />
        </div>
      </header>
      <Main>{children}</Main>
      <footer className="border-t border-border py-6 text-center text-sm text-neutral-600">
        © {YEAR} Stoa · {t("common.home")}
      </footer>
    </div>
  );
}

export default SiteShell;
