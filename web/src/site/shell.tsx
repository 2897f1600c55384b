import { useTranslation } from "react-i18next";
import { Link, Outlet, useParams } from "react-router";
import { AccountMenu } from "@/account/screens";
import { useLink } from "@/account/forms";
import { LANGUAGES } from "@/i18n";

/** The public frame: logo (home), language switch and the account menu. The page renderer fills it. */
const YEAR = new Date().getFullYear();

export function SiteShell() {
  const { t } = useTranslation();
  const link = useLink();
  const { lang } = useParams();
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-border">
        <div className="mx-auto flex max-w-7xl items-center gap-4 px-4 py-3">
          <Link to={link("")} className="text-lg font-semibold">
            Stoa
          </Link>
          <nav aria-label="Language" className="ml-auto flex gap-2 text-sm">
            {LANGUAGES.map((l) => (
              <Link key={l} to={`/${l}`} aria-current={l === lang ? "true" : undefined} className={l === lang ? "font-semibold" : ""}>
                {l.toUpperCase()}
              </Link>
            ))}
          </nav>
          <AccountMenu />
        </div>
      </header>
      <main className="flex-1">
        <Outlet />
      </main>
      <footer className="border-t border-border py-6 text-center text-sm text-neutral-600">
        © {YEAR} Stoa · {t("common.home")}
      </footer>
    </div>
  );
}

export function HomePlaceholder() {
  return (
    <section className="mx-auto max-w-7xl px-4 py-16">
      <h1 className="text-3xl font-semibold">Stoa</h1>
    </section>
  );
}
