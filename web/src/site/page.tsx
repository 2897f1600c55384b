import { useQuery } from "@tanstack/react-query";
import { Component, type ReactNode, useEffect } from "react";
import { useTranslation } from "@/i18n";
import { useLocation, useParams } from "react-router";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { type Bundle, firstImageBlock, type HostWidget } from "./content";
import { RenderVariant } from "./registry";
import { boot } from "@/lib/boot";
import { lazyPart } from "@/lib/lazy-part";
import { MediaPriority } from "@/ui/media-priority";
import { builtInScreen } from "./builtin";
import { WidgetBoundary } from "./errors";
import { Main, SkipLink } from "./skip-link";
import { goToAnchor } from "./focus";

// Only some pages show these: chunks of their own (the server renders them at once).
export const SiteShell = lazyPart(() => import("./shell"));
const ErrorFallback = lazyPart(() => import("./error-fallback"));

export const bundleKey = (url: string, preview = false) => (preview ? (["page-bundle", url, "preview"] as const) : (["page-bundle", url] as const));

/** Whether the location asks for the preview (`?preview`, `?preview=1`; not `?preview=false`):
 * an admin's page then shows drafts, on the first render (the server's) and on every refetch. */
export function isPreview(search: string): boolean {
  const v = new URLSearchParams(search).get("preview");
  return v !== null && v !== "false" && v !== "0";
}

async function fetchBundle(url: string, preview: boolean): Promise<Bundle | null> {
  try {
    // The document's HostPageBundle, read through content.ts's helpers as a Bundle.
    const bundle: Bundle | null = await api.get("/api/host/pages/bundle", { params: { query: preview ? { url, preview: true } : { url } } });
    return bundle;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

/**
 * What the server embedded about `url` (`undefined`: nothing, fetch it): the page's bundle, `null`
 * for a path no page claims, and the `/404` or `/500` page shown in its place.
 */
function embeddedBundle(url: string): Bundle | null | undefined {
  if (!boot) return undefined;
  if (boot.url === url) return boot.status === 200 ? boot.bundle : boot.status === 404 ? null : undefined;
  if ((url === "/404" && boot.status === 404) || (url === "/500" && boot.status === 500)) return boot.bundle ?? undefined;
  return undefined;
}

/** The bundle of `url`: the server's embedded one on first load, then fetched per navigation. */
export function usePageBundle(url: string) {
  const preview = isPreview(useLocation().search);
  return useQuery({
    queryKey: bundleKey(url, preview),
    queryFn: () => fetchBundle(url, preview),
    initialData: embeddedBundle(url),
    retry: false,
  });
}

/** The page path of the current location, without the language. */
export function usePagePath(): string {
  const { lang = "" } = useParams();
  const { pathname } = useLocation();
  const rest = pathname.slice(lang.length + 1);
  return rest === "" ? "/" : rest.replace(/\/+$/, "") || "/";
}

/** Host widgets in order; the one keyed `first` (the page's first image-bearing block) loads its images first. */
function HostWidgets({ widgets, lang, url, first }: { widgets: HostWidget[]; lang: string; url: string; first?: string | null }) {
  return (
    <>
      {widgets.map((w) =>
        w._externals.map((e) => {
          const key = `${w.id}-${e.id}`;
          return (
            <WidgetBoundary key={key} name={`${e.module}:${e.widget.variant}`}>
              <MediaPriority.Provider value={key === first}>
                <RenderVariant module={e.module} data={e.widget} lang={lang} url={url} />
              </MediaPriority.Provider>
            </WidgetBoundary>
          );
        }),
      )}
    </>
  );
}

/**
 * A page: each layout's default widgets, the page's widgets, then each layout's additional ones.
 * The first of the page's own widgets that shows an image (the hero) loads it eagerly; the
 * header's logo is eager by itself; every other image is lazy.
 */
export function PageView({ bundle, lang, children }: { bundle: Bundle; lang: string; children?: ReactNode }) {
  const url = bundle.url;
  const content = (
    <>
      <HostWidgets widgets={bundle.widgets} lang={lang} url={url} first={firstImageBlock(bundle.widgets)} />
      {children}
    </>
  );
  // One main landmark: the innermost layout's (the page's own widgets), the skip link's target.
  return (
    <div className="flex min-h-screen flex-col" data-page={bundle.page.id}>
      <SkipLink />
      {bundle.layouts.length === 0 ? (
        <Main>{content}</Main>
      ) : (
        bundle.layouts.reduceRight<ReactNode>(
          (inner, layout, i) => (
            <div key={layout.id} className={layout.className ?? "flex min-h-screen flex-col"}>
              <HostWidgets widgets={layout._before} lang={lang} url={url} />
              {i === bundle.layouts.length - 1 ? <Main>{inner}</Main> : <div className="flex flex-1 flex-col">{inner}</div>}
              <HostWidgets widgets={layout._after} lang={lang} url={url} />
            </div>
          ),
          content,
        )
      )}
    </div>
  );
}

function useDocumentHead(bundle: Bundle | null | undefined, fallbackTitle: string) {
  const { i18n } = useTranslation();
  const lang = i18n.language;
  useEffect(() => {
    document.title = (bundle?.metaByLanguage?.[lang] ?? bundle?.meta)?.title ?? fallbackTitle;
  }, [bundle, fallbackTitle, lang]);
}

/** The layout of the home page around a screen that has no page of its own. */
function Framed({ lang, children }: { lang: string; children: ReactNode }) {
  const home = usePageBundle("/");
  if (home.data) {
    const frame: Bundle = { ...home.data, widgets: [], url: home.data.url };
    return (
      <PageView bundle={frame} lang={lang}>
        {children}
      </PageView>
    );
  }
  return <SiteShell>{children}</SiteShell>;
}

/** Looks up the page with url `/500` and shows it; otherwise the fallback with Reload. */
function ErrorScreen({ lang, error }: { lang: string; error?: unknown }) {
  const page = usePageBundle("/500");
  if (page.data) return <PageView bundle={page.data} lang={lang} />;
  if (page.isPending) return null;
  return <ErrorFallback error={error} />;
}

class PageBoundary extends Component<{ lang: string; children: ReactNode }, { error: Error | null }> {
  state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (this.state.error) return <ErrorScreen lang={this.props.lang} error={this.state.error} />;
    return this.props.children;
  }
}

function NotFound({ lang }: { lang: string }) {
  const { t } = useTranslation();
  const page = usePageBundle("/404");
  useDocumentHead(page.data, t("site.notFound"));
  if (page.data) return <PageView bundle={page.data} lang={lang} />;
  if (page.isPending) return null;
  return (
    <Framed lang={lang}>
      <section className="mx-auto max-w-7xl px-4 py-24 text-center">
        <h1 className="text-2xl font-semibold">{t("site.notFound")}</h1>
      </section>
    </Framed>
  );
}

function Resolved({ url, lang }: { url: string; lang: string }) {
  const { t } = useTranslation();
  const q = usePageBundle(url);
  useDocumentHead(q.data, t("site.notFound"));
  if (q.isError) throw q.error;
  if (q.isPending) return <div aria-busy="true" className="min-h-screen" />;
  if (q.data) return <PageView bundle={q.data} lang={lang} />;
  const screen = builtInScreen(url);
  if (screen) return <Framed lang={lang}>{screen}</Framed>;
  return <NotFound lang={lang} />;
}

/** The public site's route: URL → page → layouts → widgets → module widgets → variants. */
export function SitePage() {
  const { lang = "ru" } = useParams();
  const url = usePagePath();
  const { pathname, hash, key } = useLocation();
  // Each visit to an anchor (the same link twice too) scrolls to its target and moves the focus
  // there, so Tab goes on from it; a new page starts at its top.
  const visit = hash ? `${key}${hash}` : `top:${pathname}`;
  useEffect(() => {
    if (visit.startsWith("top:")) window.scrollTo(0, 0);
    else goToAnchor(decodeURIComponent(visit.slice(visit.indexOf("#") + 1)));
  }, [visit]);
  return (
    <PageBoundary lang={lang}>
      <Resolved url={url} lang={lang} />
    </PageBoundary>
  );
}
