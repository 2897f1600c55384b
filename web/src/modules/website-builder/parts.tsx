import { cva } from "class-variance-authority";
import { useState, type ReactNode } from "react";
import { useTranslation } from "@/i18n";
import { Link } from "react-router";
import { filesOf, linked, tr, type Rec } from "@/site/content";
import { StoredFile } from "@/site/blocks";
import { siteLink } from "@/site/link";
import { AccountEntryLink, accountEntryOf } from "@/site/header-actions";
import type { DeclaredVariant } from "@/site/variants";
import { cn } from "@/ui/cn";

/** Every button variant of the spec (the server's declared ones): the seed's seven, `children`, and the eight for-planet ones. */
export const buttonStyles = cva(
  "inline-flex items-center justify-center gap-2 rounded-md text-sm font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-offset-2 focus-visible:ring-emerald-700",
  {
    variants: {
      variant: {
        default: "h-10 bg-neutral-900 px-4 text-white hover:bg-neutral-700",
        destructive: "h-10 bg-red-700 px-4 text-white hover:bg-red-800",
        primary: "h-10 bg-emerald-700 px-4 text-white hover:bg-emerald-800",
        secondary: "h-10 bg-neutral-100 px-4 text-neutral-900 hover:bg-neutral-200",
        outline: "h-10 border border-neutral-300 bg-white px-4 hover:bg-neutral-50",
        link: "text-emerald-800 underline-offset-4 hover:underline",
        ghost: "h-10 px-4 hover:bg-neutral-100",
        children: "",
        "for-planet-primary-extra": "h-12 rounded-full bg-lime-300 px-8 text-base font-semibold text-emerald-950 hover:bg-lime-200",
        "for-planet-link": "px-1 py-2 text-emerald-950 hover:text-emerald-700",
        "for-planet-outline": "h-12 rounded-full border-2 border-emerald-800 px-8 text-base font-semibold text-emerald-900 hover:bg-emerald-50",
        "for-planet-primary": "h-12 rounded-full bg-emerald-800 px-8 text-base font-semibold text-white hover:bg-emerald-700",
        "for-planet-secondary": "h-12 rounded-full bg-emerald-100 px-8 text-base font-semibold text-emerald-900 hover:bg-emerald-200",
        "for-planet-underline": "text-emerald-900 underline decoration-2 underline-offset-4 hover:text-emerald-700",
        "for-planet-outline-light": "h-12 rounded-full border-2 border-white px-8 text-base font-semibold text-white hover:bg-white/10",
        "for-planet-link-muted": "py-1 text-neutral-300 hover:text-white",
      } satisfies Record<DeclaredVariant<"website-builder", "button">, string>,
    },
    defaultVariants: { variant: "default" },
  },
);
type ButtonVariant = NonNullable<Parameters<typeof buttonStyles>[0]>["variant"];

/** A link that stays in the app for our paths and leaves it for others (link rule of SPEC §2). */
export function SmartLink({ to, lang, className, children, label }: { to: string; lang: string; className?: string; children: ReactNode; label?: string }) {
  const href = siteLink(to, lang);
  if (href.includes(":")) {
    const external = /^https?:/i.test(href);
    return (
      <a href={href} className={className} aria-label={label} {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
        {children}
      </a>
    );
  }
  return (
    <Link to={href} className={className} aria-label={label}>
      {children}
    </Link>
  );
}

/** A file record as an image or video (see `StoredFile`). */
export const Img = StoredFile;

/**
 * A button by its variant: a link for a url, else a label. A link to the sign-in or registration
 * screen is the account's entry (`AccountEntryLink`: the header's words, and the account and
 * sign-out for a signed-in person).
 */
export function Btn({ data, lang, className }: { data: Rec; lang: string; className?: string }) {
  const variant = (data.variant ?? "default") as ButtonVariant;
  const title = tr(data.title, lang);
  const icon = filesOf(data)[0];
  const image = icon ? <Img file={icon} className="h-5 w-5" alt="" sizes="20px" /> : null;
  const cls = cn(buttonStyles({ variant }), data.className, className);
  const entry = accountEntryOf(data.url);
  if (entry) {
    return (
      <AccountEntryLink entry={entry} className={cls}>
        {image}
      </AccountEntryLink>
    );
  }
  const body = (
    <>
      {image}
      {title}
    </>
  );
  if (!data.url) return <span className={cls}>{body}</span>;
  return (
    <SmartLink to={data.url} lang={lang} className={cls}>
      {body}
    </SmartLink>
  );
}

/** A buttons array by its variant: row, column with a title, or the default wrap; `buttonClassName` goes to each button. */
export function ButtonsArray({ data, lang, className, buttonClassName }: { data: Rec; lang: string; className?: string; buttonClassName?: string }) {
  const buttons = linked(data, "buttons-arrays-to-buttons");
  const variant = data.variant ?? "default";
  const title = tr(data.title, lang);
  if (variant.endsWith("column-with-title")) {
    return (
      <div className={cn("flex flex-col gap-2", data.className, className)}>
        {title ? <p className="mb-1 text-sm font-semibold uppercase tracking-wide text-white">{title}</p> : null}
        {buttons.map((b) => (
          <Btn key={b.id} data={b} lang={lang} className={cn("justify-start", buttonClassName)} />
        ))}
      </div>
    );
  }
  const row = variant.endsWith("row");
  return (
    <div className={cn("flex flex-wrap items-center gap-3", row && "flex-row", data.className, className)}>
      {buttons.map((b) => (
        <Btn key={b.id} data={b} lang={lang} className={buttonClassName} />
      ))}
    </div>
  );
}

export function ButtonsArrays({ data, lang, variant, className }: { data: Rec; lang: string; variant?: string; className?: string }) {
  return (
    <>
      {linked(data, "widgets-to-buttons-arrays", variant).map((b) => (
        <ButtonsArray key={b.id} data={b} lang={lang} className={className} />
      ))}
    </>
  );
}

/** A slider: loops both ways, the left and right thirds are click zones, a slide with a url is a link. */
export function Slider({ data, lang }: { data: Rec; lang: string }) {
  const { t } = useTranslation();
  const slides = linked(data, "sliders-to-slides");
  const [at, setAt] = useState(0);
  const n = slides.length;
  const go = (d: number) => setAt((i) => (((i + d) % n) + n) % n);
  const slide = slides[at] ?? slides[0];
  if (!slide) return null;
  const inner = (
    <figure className="relative overflow-hidden rounded-2xl bg-emerald-50">
      <Img file={filesOf(slide)[0]} className="aspect-[4/3] w-full object-cover" sizes="(min-width: 1024px) 50vw, 100vw" />
      <figcaption className="absolute inset-x-0 bottom-0 bg-gradient-to-t from-black/70 to-transparent p-4 text-white">
        <p className="font-semibold" data-testid="slide-title">{tr(slide.title, lang)}</p>
        <p className="text-sm opacity-90">{tr(slide.subtitle, lang)}</p>
      </figcaption>
    </figure>
  );
  return (
    <section className="relative" aria-roledescription="carousel" aria-label={tr(data.title, lang) || t("site.slide", { n: at + 1, total: n })}>
      <div aria-live="polite" aria-label={t("site.slide", { n: at + 1, total: n })}>
        {slide.url ? (
          <SmartLink to={slide.url} lang={lang} className="block">
            {inner}
          </SmartLink>
        ) : (
          inner
        )}
      </div>
      <button type="button" aria-label={t("site.previous")} data-testid="slider-prev" onClick={() => go(-1)} className="absolute inset-y-0 left-0 w-1/4 cursor-w-resize rounded-2xl">
        <span aria-hidden className="ml-3 inline-flex h-10 w-10 items-center justify-center rounded-full bg-white/80 text-xl text-emerald-900">‹</span>
      </button>
      <button type="button" aria-label={t("site.next")} data-testid="slider-next" onClick={() => go(1)} className="absolute inset-y-0 right-0 flex w-1/4 cursor-e-resize items-center justify-end rounded-2xl">
        <span aria-hidden className="mr-3 inline-flex h-10 w-10 items-center justify-center rounded-full bg-white/80 text-xl text-emerald-900">›</span>
      </button>
      <div className="mt-3 flex justify-center gap-2" aria-hidden>
        {slides.map((s, i) => (
          <span key={s.id} className={cn("h-2 w-2 rounded-full", i === at ? "bg-emerald-800" : "bg-emerald-200")} />
        ))}
      </div>
    </section>
  );
}

/** A section of a page: the block's anchor as its id, content at most 7xl wide. */
export function Section({ data, className, children, tone }: { data: Rec; className?: string; children: ReactNode; tone?: "light" | "dark" | "tint" }) {
  const bg = tone === "dark" ? "bg-emerald-950 text-white" : tone === "tint" ? "bg-emerald-50" : "";
  return (
    <section id={data.anchor || undefined} className={cn("scroll-mt-20", bg, data.className)} data-variant={data.variant}>
      <div className={cn("mx-auto max-w-7xl px-4 py-16 sm:px-6 lg:px-8", className)}>{children}</div>
    </section>
  );
}

export function Heading({ data, lang, as = "h2", className }: { data: Rec; lang: string; as?: "h1" | "h2" | "h3"; className?: string }) {
  const title = tr(data.title, lang);
  const subtitle = tr(data.subtitle, lang);
  const H = as;
  return (
    <>
      {title ? <H className={cn(as === "h1" ? "text-4xl font-bold tracking-tight sm:text-6xl" : "text-3xl font-bold tracking-tight sm:text-4xl", className)}>{title}</H> : null}
      {subtitle ? <p className="mt-4 max-w-3xl text-lg opacity-80">{subtitle}</p> : null}
    </>
  );
}
