import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { LANGUAGES, useTranslation } from "@/i18n";
import { Link, useLocation } from "react-router";
import { api } from "@/api/client";
import { filesOf, linked, tr, type Rec } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { RichText, richOf } from "@/site/rich-text";
import { formatNumber } from "@/lib/number";
import { cn } from "@/ui/cn";
import { AccountEntries, AccountMenu, CartButton, ChatButton, SearchLink } from "@/site/header-actions";
import { Sheet, SheetClose, SheetContent, SheetTitle, SheetTrigger } from "@/ui/sheet";
import { Menu, X } from "lucide-react";
import { Feature, Features } from "./features";
import { Btn, ButtonsArray, ButtonsArrays, Heading, Img, Section, Slider, SmartLink } from "./parts";

/** The copyright year, fixed when the bundle loads. */
const YEAR = new Date().getFullYear();

function Description({ data, lang, className }: { data: Rec; lang: string; className?: string }) {
  return <RichText value={richOf(data.description, lang)} className={cn("mt-4 max-w-3xl space-y-3 text-lg opacity-90", className)} />;
}

function Sliders({ data, lang }: { data: Rec; lang: string }) {
  return (
    <>
      {linked(data, "widgets-to-sliders").map((s) => (
        <Slider key={s.id} data={s} lang={lang} />
      ))}
    </>
  );
}

/** The relation from a logotype to its images. */
const LOGO_FILES = "logotypes-to-file-storage-module-files";

/**
 * The logotype's image for a page in `lang`: one linked for that language (relation variant
 * `ru`, `en`), else its default one — unless that one's words are another language's (its `alt`,
 * the words it shows, is the logotype's title in another language, not in `lang`): then none, and
 * the header sets the title as text. One language per page, the logo's words included.
 */
export function logoFile(logo: Rec, lang: string): Rec | undefined {
  const own = linked(logo, LOGO_FILES, lang)[0];
  if (own) return own;
  const file = linked(logo, LOGO_FILES, "default")[0] ?? filesOf(logo)[0];
  if (!file) return undefined;
  const words = typeof file.alt === "string" ? file.alt.trim() : "";
  const titles = logo.title && typeof logo.title === "object" ? (logo.title as Record<string, unknown>) : {};
  const here = tr(logo.title, lang).trim();
  const elsewhere = Object.entries(titles).some(([l, v]) => l !== lang && typeof v === "string" && v.trim() === words);
  return words && elsewhere && words !== here ? undefined : file;
}

function Logo({ data, lang }: { data: Rec; lang: string }) {
  const logo = linked(data, "widgets-to-logotypes")[0];
  if (!logo) return <span className="shrink-0 text-lg font-bold">{tr(data.title, lang)}</span>;
  const title = tr(logo.title, lang);
  const file = logoFile(logo, lang);
  return (
    <SmartLink to={logo.url ?? "/"} lang={lang} className="flex shrink-0 items-center gap-2 rounded-md" label={file ? title : undefined}>
      {/* The header is above the fold on every page: its logo is never lazy. */}
      {file ? (
        <Img file={file} className="h-8 w-auto xl:h-9" alt="" sizes="160px" priority />
      ) : (
        <span className="whitespace-nowrap text-xl font-bold tracking-tight text-emerald-900" data-testid="logo-text">
          {title}
        </span>
      )}
    </SmartLink>
  );
}

function LanguageSwitch({ lang, light, className }: { lang: string; light?: boolean; className?: string }) {
  const { t } = useTranslation();
  const { pathname, hash } = useLocation();
  const rest = pathname.replace(/^\/[a-z]{2}(?=\/|$)/, "");
  return (
    <nav aria-label={t("site.language")} className={cn("flex shrink-0 gap-1 text-sm", className)}>
      {LANGUAGES.map((l) => (
        <Link
          key={l}
          to={`/${l}${rest}${hash}`}
          aria-current={l === lang ? "true" : undefined}
          className={cn("rounded px-1.5 py-1 font-medium xl:px-2", l === lang ? (light ? "bg-white/15" : "bg-emerald-100 text-emerald-950") : "opacity-80 hover:opacity-100")}
        >
          {l.toUpperCase()}
        </Link>
      ))}
    </nav>
  );
}

/** The browser's address as `useLocation` gives it (path, query, hash). */
function currentAddress(): string {
  return `${window.location.pathname}${window.location.search}${window.location.hash}`;
}

/** The navbar's links and its call to action: one line from the lg breakpoint (smaller type and
 * gaps until xl, so the Russian labels fit at 1024 px too). */
const NAV_LINK = "whitespace-nowrap px-1.5 text-sm xl:px-2 xl:text-[0.9375rem]";
const NAV_ACTION = "h-10 whitespace-nowrap px-4 text-sm xl:h-11 xl:px-6";

/**
 * Navbar: the logo, the links, the language, the cart and the account in one line from the lg
 * breakpoint; below it a menu button opens a sheet (a dialog: Escape closes it and gives focus
 * back to the button; any navigation closes it) with the links, the language and the account.
 */
function Navbar({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const location = useLocation();
  // The menu is open for the location it was opened at: any navigation closes it (and Back to
  // that location does not open it again).
  const here = `${location.pathname}${location.search}${location.hash}`;
  const [openAt, setOpenAt] = useState<string | null>(null);
  const open = openAt === here;
  if (openAt !== null && !open) setOpenAt(null);
  // Where the menu was opened: closed by a navigation (the address changed since), the focus goes
  // where the navigation sends it (an anchor's target), not back to the menu button. A ref: the
  // dialog calls back after it has gone, with the props it last had.
  const openedAt = useRef("");
  const main = linked(data, "widgets-to-buttons-arrays", "default");
  const extra = linked(data, "widgets-to-buttons-arrays", "additional");
  return (
    <header className={cn("sticky top-0 z-40 border-b border-emerald-100 bg-white/95 backdrop-blur", data.className)} data-variant={data.variant}>
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:gap-3 lg:px-6 xl:gap-6 xl:px-8" data-testid="navbar-bar">
        <Logo data={data} lang={lang} />
        <nav aria-label={t("site.mainMenu")} className="hidden min-w-0 flex-1 items-center lg:flex" data-testid="navbar-links">
          {main.map((b) => (
            <ButtonsArray key={b.id} data={b} lang={lang} className="flex-nowrap gap-0 xl:gap-1" buttonClassName={NAV_LINK} />
          ))}
        </nav>
        <div className="ml-auto hidden shrink-0 items-center gap-1 lg:flex xl:gap-2" data-testid="navbar-actions">
          {/* From 1024 px, as the bar itself (below it, the menu has it). */}
          <SearchLink className="inline-flex h-9 w-9 items-center justify-center rounded-md text-emerald-950 hover:bg-emerald-50" />
          <LanguageSwitch lang={lang} />
          <ChatButton />
          <CartButton />
          <AccountMenu />
          {extra.map((b) => (
            <ButtonsArray key={b.id} data={b} lang={lang} className="flex-nowrap" buttonClassName={NAV_ACTION} />
          ))}
        </div>
        <Sheet
          open={open}
          onOpenChange={(o) => {
            openedAt.current = here;
            setOpenAt(o ? here : null);
          }}
        >
          <SheetTrigger asChild>
            <button type="button" data-testid="menu-toggle" className="ml-auto inline-flex h-11 w-11 items-center justify-center rounded-md text-emerald-950 hover:bg-emerald-50 lg:hidden">
              <Menu aria-hidden className="h-6 w-6" />
              <span className="sr-only">{t("site.menu")}</span>
            </button>
          </SheetTrigger>
          <SheetContent data-testid="mobile-menu" onCloseAutoFocus={(e) => currentAddress() !== openedAt.current && e.preventDefault()}>
            <div className="flex h-16 shrink-0 items-center justify-between gap-4 border-b border-emerald-100 px-4">
              <SheetTitle className="text-lg font-semibold text-emerald-950">{t("site.menu")}</SheetTitle>
              <SheetClose className="inline-flex h-11 w-11 items-center justify-center rounded-md text-emerald-950 hover:bg-emerald-50" data-testid="menu-close">
                <X aria-hidden className="h-6 w-6" />
                <span className="sr-only">{t("site.closeMenu")}</span>
              </SheetClose>
            </div>
            <div className="flex flex-1 flex-col gap-6 px-4 py-6">
              <nav aria-label={t("site.mainMenu")}>
                {main.map((b) => (
                  <ButtonsArray key={b.id} data={b} lang={lang} className="flex-col items-stretch gap-1" buttonClassName="justify-start px-2 py-3 text-base" />
                ))}
              </nav>
              {extra.map((b) => (
                <ButtonsArray key={b.id} data={b} lang={lang} className="flex-col items-stretch" />
              ))}
              <SearchLink label className="flex w-full items-center gap-2 rounded-md px-2 py-3 text-base font-medium text-emerald-950 hover:bg-emerald-50" />
              <div className="flex flex-wrap items-center gap-3">
                <CartButton />
              </div>
              <AccountEntries className="grid gap-1 border-t border-emerald-100 pt-4" itemClassName="flex w-full rounded-md px-2 py-3 text-base font-medium text-emerald-950 hover:bg-emerald-50" />
              <LanguageSwitch lang={lang} className="mt-auto" />
            </div>
          </SheetContent>
        </Sheet>
      </div>
    </header>
  );
}

/** Footer: a 12-column grid — the brand over 3 columns, then 3 columns of links — and the
 * copyright. A link to sign-in or registration is the account's entry (`AccountEntryLink`). */
function Footer({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const columns = linked(data, "widgets-to-buttons-arrays").slice(0, 3);
  return (
    <footer className={cn("bg-emerald-950 text-neutral-200", data.className)} data-variant={data.variant}>
      <div className="mx-auto grid max-w-7xl grid-cols-12 gap-8 px-4 py-14 sm:px-6 lg:px-8">
        <div className="col-span-12 lg:col-span-3">
          <p className="text-xl font-bold text-white">{tr(data.title, lang)}</p>
          <Description data={data} lang={lang} className="mt-3 text-sm text-neutral-300" />
        </div>
        {columns.map((c) => (
          <div key={c.id} className="col-span-12 sm:col-span-4 lg:col-span-3">
            <ButtonsArray data={c} lang={lang} />
          </div>
        ))}
      </div>
      <div className="border-t border-white/10">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-4 px-4 py-6 text-sm text-neutral-300 sm:px-6 lg:px-8">
          <p data-testid="copyright">
            © {YEAR} {t("site.rights")}
          </p>
          <LanguageSwitch lang={lang} light />
        </div>
      </div>
    </footer>
  );
}

function Content({ data, lang }: VariantProps) {
  return (
    <Section data={data}>
      <Heading data={data} lang={lang} />
      <Description data={data} lang={lang} />
      <div className="mt-8 grid gap-6 md:grid-cols-2">
        <Features data={data} lang={lang} />
      </div>
      <Sliders data={data} lang={lang} />
      <ButtonsArrays data={data} lang={lang} className="mt-8" />
    </Section>
  );
}

function HeadingBlock({ data, lang }: VariantProps) {
  const image = filesOf(data)[0];
  return (
    <Section data={data} className="grid items-center gap-10 py-20 lg:grid-cols-2">
      <div>
        <Heading data={data} lang={lang} as="h1" />
        <Description data={data} lang={lang} />
        <ButtonsArrays data={data} lang={lang} className="mt-8" />
      </div>
      {image ? <Img file={image} className="w-full rounded-3xl object-cover shadow-lg" sizes="(min-width: 1280px) 588px, (min-width: 1024px) 50vw, 100vw" /> : null}
    </Section>
  );
}

/** A campaign's numbers: the trees it aims at, and those planted before payments were counted here. */
export interface Campaign {
  goal: number;
  offset: number;
}

/** The numbers of a target widget whose data does not give them (the demo campaign's). */
export const DEFAULT_CAMPAIGN: Campaign = { goal: 1_000_000, offset: 66_713 };

/**
 * A target widget's campaign, from its data: `options.goal` (above 0) and `options.offset` (0 or
 * more), e.g. `"options": {"goal": 1000000, "offset": 66713}`; each missing one is `DEFAULT_CAMPAIGN`'s.
 */
export function campaignOf(data: Rec): Campaign {
  const options = data.options && typeof data.options === "object" ? (data.options as Record<string, unknown>) : {};
  const goal = options.goal;
  const offset = options.offset;
  return {
    goal: typeof goal === "number" && Number.isFinite(goal) && goal > 0 ? goal : DEFAULT_CAMPAIGN.goal,
    offset: typeof offset === "number" && Number.isFinite(offset) && offset >= 0 ? offset : DEFAULT_CAMPAIGN.offset,
  };
}

/** Progress toward the campaign's goal: paid quantity + its offset, animated over 2 s. */
export function ProgressBar({ data, lang }: { data: Rec; lang: string }) {
  const { t } = useTranslation();
  const q = useQuery({
    queryKey: ["paid-orders-to-products-quantity"],
    queryFn: () => api.get("/api/ecommerce/orders/paid-orders-to-products-quantity"),
  });
  const { goal, offset } = campaignOf(data);
  // Until the paid quantity arrives the number is a dash, not the offset alone: a visitor never
  // sees a count that then jumps (and a reader of the page never takes it for the real one).
  const loading = q.data === undefined && !q.isError;
  const count = (q.data ?? 0) + offset;
  const pct = loading ? 0 : Math.min(100, (count / goal) * 100);
  const [shown, setShown] = useState(0);
  useEffect(() => {
    const id = requestAnimationFrame(() => setShown(pct));
    return () => cancelAnimationFrame(id);
  }, [pct]);
  return (
    <div className="mt-8">
      <div className="flex items-end justify-between gap-4">
        <p className="text-4xl font-bold text-emerald-900" data-testid="progress-count" data-state={loading ? "loading" : "ready"} aria-busy={loading}>
          {loading ? "—" : formatNumber(lang, count)} <span className="text-base font-medium text-emerald-800">{t("site.planted")}</span>
        </p>
        <p className="text-sm text-neutral-600">
          {t("site.goal")}: {formatNumber(lang, goal)}
        </p>
      </div>
      <progress className="sr-only" aria-label={t("site.planted")} max={goal} value={count} />
      <div aria-hidden className="mt-3 h-4 overflow-hidden rounded-full bg-emerald-100">
        <div data-testid="progress-fill" className="h-full rounded-full bg-emerald-700 transition-[width] duration-[2000ms] ease-out" style={{ width: `${shown}%` }} />
      </div>
    </div>
  );
}

function Target({ data, lang }: VariantProps) {
  return (
    <Section data={data} tone="tint">
      <Heading data={data} lang={lang} />
      <ProgressBar data={data} lang={lang} />
      <div className="mt-6 grid gap-4 md:grid-cols-2">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function Grid({ data, lang, cols = "md:grid-cols-3", tone }: VariantProps & { cols?: string; tone?: "tint" | "dark" }) {
  return (
    <Section data={data} tone={tone}>
      <Heading data={data} lang={lang} />
      <Description data={data} lang={lang} />
      <div className={cn("mt-10 grid gap-6", cols)}>
        <Features data={data} lang={lang} />
      </div>
      <ButtonsArrays data={data} lang={lang} className="mt-8" />
    </Section>
  );
}

/** The press: up to 7 headline cards in rows of three (two on a tablet, one on a phone), each row
 * as tall as its tallest card, a last short row centred. */
function Headlines({ data, lang }: VariantProps) {
  const items = linked(data, "widgets-to-features").slice(0, 7);
  return (
    <Section data={data} tone="tint">
      <Heading data={data} lang={lang} />
      <ul className="mt-10 flex flex-wrap justify-center gap-4 lg:gap-6">
        {items.map((f, i) => (
          <li key={f.id} data-index={i} className="w-full sm:w-[calc((100%-1rem)/2)] lg:w-[calc((100%-3rem)/3)]">
            <Feature data={f} lang={lang} index={i} />
          </li>
        ))}
      </ul>
    </Section>
  );
}

function GalleryAndText({ data, lang, inversed }: VariantProps & { inversed: boolean }) {
  const hasSlider = linked(data, "widgets-to-sliders").length > 0;
  return (
    <Section data={data} className="grid items-center gap-10 lg:grid-cols-2">
      <div className={cn(inversed && "lg:order-2")}>
        <Heading data={data} lang={lang} />
        <Description data={data} lang={lang} />
        <ButtonsArrays data={data} lang={lang} className="mt-6" />
      </div>
      <div className={cn("grid gap-4", inversed && "lg:order-1")}>
        {hasSlider ? <Sliders data={data} lang={lang} /> : null}
        <div className="grid grid-cols-2 gap-4">
          <Features data={data} lang={lang} />
        </div>
      </div>
    </Section>
  );
}

function CreateSubscription({ data, lang }: VariantProps) {
  return (
    <Section data={data} tone="dark" className="pb-4 text-center [&_p]:mx-auto">
      <Heading data={data} lang={lang} className="text-white" />
      <Description data={data} lang={lang} className="mx-auto" />
      <div className="mt-6 grid gap-4 md:grid-cols-3">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function TimelineBlock({ data, lang }: VariantProps) {
  return (
    <Section data={data}>
      <Heading data={data} lang={lang} />
      <ol className="mt-10 max-w-2xl">
        <Features data={data} lang={lang} />
      </ol>
    </Section>
  );
}

/** Three video players, loaded only when asked for (no third-party request before a click). */
function Videos({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const videos = linked(data, "widgets-to-buttons-arrays").flatMap((b) => linked(b, "buttons-arrays-to-buttons")).slice(0, 3);
  const poster = filesOf(data)[0];
  const [playing, setPlaying] = useState<string | null>(null);
  return (
    <Section data={data} tone="tint">
      <Heading data={data} lang={lang} />
      <div className="mt-10 grid gap-6 md:grid-cols-3">
        {videos.map((v) => (
          <figure key={v.id} className="overflow-hidden rounded-2xl bg-black">
            {playing === v.id && v.url ? (
              // The player is cross-origin, so scripts + same-origin cannot reach our page.
              // oxlint-disable-next-line react/iframe-missing-sandbox
              <iframe sandbox="allow-scripts allow-same-origin allow-presentation allow-popups" src={`${v.url}?autoplay=1`} title={tr(v.title, lang)} className="aspect-video w-full" allow="autoplay; encrypted-media; picture-in-picture" allowFullScreen />
            ) : (
              <button type="button" onClick={() => setPlaying(v.id)} className="block w-full" aria-label={t("site.play", { title: tr(v.title, lang) })}>
                <Img file={poster} className="aspect-video w-full object-cover" alt="" />
              </button>
            )}
            <figcaption className="bg-white p-3 text-sm font-medium">{tr(v.title, lang)}</figcaption>
          </figure>
        ))}
      </div>
    </Section>
  );
}

/** The map of regions: on a phone as wide as a tablet's, in a box that scrolls sideways (its
 * numbered markers stay readable), the list of regions beside it from xl, under it below. */
function MapBlock({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const title = tr(data.title, lang);
  const map = filesOf(data)[0];
  return (
    <Section data={data} className="grid gap-10 xl:grid-cols-3">
      <div className="min-w-0 xl:col-span-2">
        <Heading data={data} lang={lang} />
        {map ? (
          <>
            {/* oxlint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a box that scrolls must take focus, for the keyboard to scroll it */}
            <section className="mt-8 overflow-x-auto rounded-3xl" tabIndex={0} aria-label={title || t("site.map")} data-testid="map-scroll">
              <Img file={map} className="w-[44rem] max-w-none rounded-3xl md:w-full md:max-w-full" sizes="(min-width: 1280px) 800px, (min-width: 768px) 100vw, 704px" />
            </section>
            <p className="mt-2 text-sm text-neutral-600 md:hidden">{t("site.mapScroll")}</p>
          </>
        ) : null}
      </div>
      <div className="grid gap-x-8 sm:grid-cols-2 xl:grid-cols-1 xl:self-end">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function Requisites({ data, lang }: VariantProps) {
  return (
    <Section data={data}>
      <Heading data={data} lang={lang} />
      <div className="mt-8 max-w-3xl">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function QrBlock({ data, lang }: VariantProps) {
  return (
    <Section data={data} tone="tint" className="flex flex-col items-center text-center">
      <Heading data={data} lang={lang} />
      <div className="mt-8">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function FaqBlock({ data, lang }: VariantProps) {
  return (
    <Section data={data}>
      <Heading data={data} lang={lang} />
      <div className="mt-8 grid gap-3">
        <Features data={data} lang={lang} />
      </div>
    </Section>
  );
}

function Default({ data, lang }: VariantProps) {
  const buttons = linked(data, "widgets-to-buttons-arrays").flatMap((b) => linked(b, "buttons-arrays-to-buttons"));
  return (
    <Section data={data}>
      <Heading data={data} lang={lang} />
      <Description data={data} lang={lang} />
      <div className="mt-6 grid gap-6 md:grid-cols-2">
        <Features data={data} lang={lang} />
      </div>
      <div className="mt-6 flex flex-wrap gap-3">
        {buttons.map((b) => (
          <Btn key={b.id} data={b} lang={lang} />
        ))}
      </div>
    </Section>
  );
}

/** Every declared variant of website-builder widgets. */
export const variants = {
  default: Default,
  "content-default": Content,
  "content-for-planet-default": Content,
  "navbar-default": Navbar,
  "navbar-for-planet-default": Navbar,
  "footer-default": Footer,
  "footer-for-planet-default": Footer,
  "content-block-for-planet-heading": HeadingBlock,
  "content-block-for-planet-target": Target,
  "content-block-for-planet-how-it-works": (p) => <Grid {...p} />,
  "content-block-for-planet-headlines": Headlines,
  "content-block-for-planet-gallery-and-text": (p) => <GalleryAndText {...p} inversed={false} />,
  "content-block-for-planet-gallery-and-text-inversed": (p) => <GalleryAndText {...p} inversed />,
  "content-block-for-planet-create-subscription": CreateSubscription,
  "content-block-for-planet-timeline": TimelineBlock,
  "content-block-for-planet-tiers": (p) => <Grid {...p} tone="tint" />,
  "content-block-for-planet-celebrities": (p) => <Grid {...p} />,
  "content-block-for-planet-videos": Videos,
  "content-block-for-planet-map": MapBlock,
  "content-block-for-planet-requisites": Requisites,
  "content-block-for-planet-qr-code": QrBlock,
  "content-block-for-planet-faq": FaqBlock,
} satisfies VariantsOf<"website-builder">;
