import { Suspense, useEffect, useMemo, useState } from "react";
import { useTranslation } from "@/i18n";
import { Link, NavLink, useLocation, useParams } from "react-router";
import { type EntityMeta, entityName, type Meta, useMeta } from "@/api/meta";
import { meKey, useMe } from "@/lib/session";
import AccountMenu from "@/site/account-menu";
import { entityClient } from "@/api/entities";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "@/ui/button";
import { Input } from "@/ui/input";
import { cn } from "@/ui/cn";
import { useToolsT } from "./i18n";
import { EnrolmentRequired } from "./enrolment";
import { SignedOut } from "./first-run";
import { adminLanguage, adminSignInUrl, rememberAdminLanguage } from "./language";
import { navGroups } from "./nav-groups";
import { AdminShortcuts } from "./shortcuts-help";
import { EntityTable } from "./table";
import { adminScreens, dashboardCards, entityViews } from "./registry";
// The admin's own screens and cards.
import "./views";

/** A signed-in person who is not an admin: told so, with the way to another account or the site. */
function NotAuthorized() {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-2xl font-semibold">{t("admin.notAuthorized")}</h1>
      <p className="max-w-md text-neutral-700">{t("admin.notAnAdmin")}</p>
      <p className="flex gap-4">
        <Link className="font-medium underline underline-offset-4" to={adminSignInUrl(pathname + search)}>
          {t("admin.otherAccount")}
        </Link>
        <Link className="font-medium underline underline-offset-4" to="/">
          {t("admin.openSite")}
        </Link>
      </p>
    </main>
  );
}

/** The admin in the language its person chose last (kept in the browser and with the account), from
 * the first screen. */
function useAdminLanguage(account: string | null | undefined) {
  const { i18n } = useTranslation();
  useEffect(() => {
    const lang = adminLanguage(account);
    if (i18n.language !== lang) {
      document.documentElement.lang = lang;
      void i18n.changeLanguage(lang);
    }
  }, [i18n, account]);
}

/** An entity's own screen when its module gives one (with a switch to the generic table), else the table. */
function CurrentEntity({ entity, meta, lang, raw, setRaw }: { entity: EntityMeta; meta: Meta; lang: string; raw: boolean; setRaw: (r: boolean) => void }) {
  const { t } = useTranslation();
  const View = entityViews[`${entity.module}.${entity.name}`];
  if (!View)
    return (
      <div data-screen={`${entity.module}.${entity.name}`}>
        <EntityTable entity={entity} meta={meta} lang={lang} />
      </div>
    );
  return (
    <div data-screen={`${entity.module}.${entity.name}`} data-custom>
      <div className="mb-4 flex justify-end">
        <Button size="sm" variant="outline" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          {raw ? t("admin.customView") : t("admin.tableView")}
        </Button>
      </div>
      {raw ? <EntityTable entity={entity} meta={meta} lang={lang} /> : <View lang={lang} />}
    </div>
  );
}

/** The back office: a side list of every module's entities and a generic table for the chosen one. */
export default function AdminApp() {
  const { t, i18n } = useTranslation();
  const me = useMe();
  const meta = useMeta();
  const { module, entity } = useParams();
  const [filter, setFilter] = useState("");
  const [sideHidden, setSideHidden] = useState(false);
  // Below the md breakpoint the side list is a drawer behind a menu button, open on the page it
  // was opened on (a link followed closes it).
  const { pathname } = useLocation();
  const [menuAt, setMenuAt] = useState<string | null>(null);
  const menuOpen = menuAt === pathname;
  const setMenuOpen = (open: boolean) => setMenuAt(open ? pathname : null);
  const tt = useToolsT();
  const qc = useQueryClient();
  const [raw, setRaw] = useState(false);
  useAdminLanguage(me.data?.language);
  const lang = i18n.language;
  const groups = useMemo(() => (meta.data ? navGroups(meta.data, lang, filter, (p) => t(`admin.purpose.${p}`)) : []), [meta.data, lang, filter, t]);
  if (me.isPending) return null;
  // An admin who must enrol a second factor first is no admin until then (the server says so).
  if (me.data?.secondFactor?.required && !me.data.secondFactor.satisfied) return <EnrolmentRequired lang={lang} />;
  if (!me.data) return <SignedOut />;
  if (!me.data.admin) return <NotAuthorized />;
  if (!meta.data) return null;
  const current = meta.data.entities.find((e) => e.module === module && e.name === entity);
  const screen = entity ? undefined : adminScreens.find((s) => s.path === module);
  return (
    <div className="flex h-screen flex-col">
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-border px-4 py-2">
        <Button size="sm" variant="outline" className="md:hidden" onClick={() => setMenuOpen(true)} aria-expanded={menuOpen} aria-controls="admin-models">
          {tt("nav.menu")}
        </Button>
        <Link to="/admin" className="font-semibold">
          Stoa · {t("admin.title")}
        </Link>
        <Button size="sm" variant="outline" className="hidden md:inline-flex" onClick={() => setSideHidden((h) => !h)} aria-expanded={!sideHidden} aria-controls="admin-models">
          {sideHidden ? t("admin.show") : t("admin.hide")} {t("admin.models").toLowerCase()}
        </Button>
        <div className="ml-auto flex items-center gap-2">
          <AdminShortcuts />
          <select aria-label={t("site.language")} className="h-8 rounded-md border border-border px-2 text-sm" value={lang} onChange={(e) => {
              document.documentElement.lang = e.target.value;
              rememberAdminLanguage(e.target.value);
              void i18n.changeLanguage(e.target.value);
              // Kept with the account too: another device opens in it (and the site's mails to
              // this person come in it).
              if (me.data && me.data.language !== e.target.value)
                void entityClient({ path: "/api/rbac/subjects" })
                  .update(me.data.id, { language: e.target.value })
                  .then(() => qc.invalidateQueries({ queryKey: meKey }))
                  .catch(() => undefined);
            }}>
            {meta.data.languages.map((l) => (
              <option key={l} value={l} lang={l}>
                {t(`admin.languageNames.${l}`, { defaultValue: l })}
              </option>
            ))}
          </select>
          <Link to="/" className="text-sm underline-offset-4 hover:underline">
            {t("admin.openSite")}
          </Link>
          <AccountMenu />
        </div>
      </header>
      <div className="flex min-h-0 flex-1">
        {menuOpen ? <div aria-hidden className="fixed inset-0 z-30 bg-black/40 md:hidden" onClick={() => setMenuOpen(false)} /> : null}
        {sideHidden && !menuOpen ? null : (
          <nav
            id="admin-models"
            aria-label={t("admin.models")}
            className={cn(
              "w-72 shrink-0 overflow-y-auto border-r border-border bg-white p-3",
              menuOpen ? "fixed inset-y-0 left-0 z-40 w-[min(18rem,85vw)] shadow-xl md:static md:w-72 md:shadow-none" : "hidden md:block",
              sideHidden && "md:hidden",
            )}
          >
            {menuOpen ? (
              <Button size="sm" variant="outline" className="mb-3 md:hidden" onClick={() => setMenuOpen(false)}>
                {tt("nav.close")}
              </Button>
            ) : null}
            <ul aria-label={t("admin.screens")} className="mb-4">
              {adminScreens.map((s) => (
                <li key={s.path}>
                  <NavLink
                    to={`/admin/${s.path}`}
                    className={({ isActive }) => `block rounded px-2 py-1 text-sm font-medium hover:bg-muted ${isActive ? "bg-muted" : ""}`}
                  >
                    {s.title(t)}
                  </NavLink>
                </li>
              ))}
            </ul>
            <Input type="search" placeholder={t("admin.filterModels")} aria-label={t("admin.filterModels")} value={filter} onChange={(e) => setFilter(e.target.value)} />
            {groups.map((g) => (
              <div key={g.key} className="mt-4" data-group={g.key}>
                <h2 className="px-2 text-xs font-semibold uppercase tracking-wide text-neutral-600">{g.title}</h2>
                <ul className="mt-1">
                  {g.entities.map((e) => (
                    <li key={`${e.module}.${e.name}`}>
                      <NavLink
                        to={`/admin/${e.module}/${e.name}`}
                        className={({ isActive }) => `block rounded px-2 py-1 text-sm hover:bg-muted ${isActive ? "bg-muted font-medium" : ""}`}
                      >
                        {entityName(e, lang, true)}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
        )}
        <main className="min-w-0 flex-1 overflow-y-auto p-4 md:p-6">
          {current ? (
            <CurrentEntity key={`${current.module}.${current.name}`} entity={current} meta={meta.data} lang={lang} raw={raw} setRaw={setRaw} />
          ) : screen ? (
            <Suspense fallback={<p className="text-sm">{t("admin.loading")}</p>}>
              <screen.Screen lang={lang} />
            </Suspense>
          ) : (
            <div className="space-y-6">
              {dashboardCards.map(({ key, Card }) => (
                <Card key={key} lang={lang} />
              ))}
              <p className="text-sm text-muted-foreground">
                {t("admin.models")}: {meta.data.entities.length}
              </p>
            </div>
          )}
        </main>
      </div>
    </div>
  );
}
