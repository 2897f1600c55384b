import { useHydrated } from "@/lib/client-only";
import { useEffect, useRef, useState } from "react";
import { filesOf, linked, registeredLang, tr, type Rec } from "@/site/content";
import { UnknownVariant } from "@/site/registry";
import { RichText, richOf } from "@/site/rich-text";
import type { DeclaredVariant } from "@/site/variants";
import { cn } from "@/ui/cn";
import { ButtonsArray, Img } from "./parts";

interface FeatureProps {
  data: Rec;
  lang: string;
  index?: number;
}

function Arrays({ data, lang }: { data: Rec; lang: string }) {
  return (
    <>
      {linked(data, "features-to-buttons-arrays").map((b) => (
        <ButtonsArray key={b.id} data={b} lang={lang} className="mt-4" />
      ))}
    </>
  );
}

function Body({ data, lang, className }: { data: Rec; lang: string; className?: string }) {
  return <RichText value={richOf(data.description, lang)} className={cn("space-y-2 opacity-90", className)} />;
}

function Default({ data, lang }: FeatureProps) {
  return (
    <div className={cn("rounded-2xl border border-neutral-200 p-6", data.className)}>
      <Img file={filesOf(data)[0]} className="mb-4 rounded-xl" />
      <h3 className="text-lg font-semibold">{tr(data.title, lang)}</h3>
      {tr(data.subtitle, lang) ? <p className="mt-1 text-sm text-neutral-600">{tr(data.subtitle, lang)}</p> : null}
      <Body data={data} lang={lang} className="mt-2" />
      <Arrays data={data} lang={lang} />
    </div>
  );
}

/** An image with its caption under it (only the image is rounded: a caption inside the rounded
 * clip lost its first letters to the corner). */
function Gallery({ data, lang }: FeatureProps) {
  const caption = tr(data.title, lang);
  return (
    <figure className={cn("flex min-w-0 flex-col", data.className)}>
      <Img file={filesOf(data)[0]} className="aspect-[4/3] w-full rounded-2xl object-cover" />
      {caption ? <figcaption className="mt-3 text-sm font-medium leading-snug text-neutral-700">{caption}</figcaption> : null}
    </figure>
  );
}

/** A press quote: the headline, then the publication, as tall as the others in its row. */
function Headline({ data, lang }: FeatureProps) {
  return (
    <blockquote className={cn("flex h-full flex-col justify-between gap-3 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-emerald-100", data.className)}>
      <p className="text-base font-semibold leading-snug text-emerald-950">{tr(data.title, lang)}</p>
      <footer className="text-sm text-emerald-800">— {tr(data.subtitle, lang)}</footer>
    </blockquote>
  );
}

function HowItWorks({ data, lang, index = 0 }: FeatureProps) {
  return (
    <div className={cn("flex flex-col rounded-3xl bg-emerald-50 p-6", data.className)}>
      <span aria-hidden className="mb-4 inline-flex h-10 w-10 items-center justify-center rounded-full bg-emerald-800 font-bold text-white">{index + 1}</span>
      <Img file={filesOf(data)[0]} className="mb-4 aspect-square w-full rounded-2xl object-cover" />
      <h3 className="text-xl font-semibold">{tr(data.title, lang)}</h3>
      <Body data={data} lang={lang} className="mt-2" />
    </div>
  );
}

function Requisite({ data, lang }: FeatureProps) {
  return (
    <div className={cn("flex flex-col gap-1 border-b border-emerald-100 py-3 sm:flex-row sm:justify-between", data.className)}>
      <p className="text-sm text-neutral-600">{tr(data.title, lang)}</p>
      <p className="font-mono text-base font-medium" lang={registeredLang(tr(data.subtitle, lang), lang)} data-requisite>
        {tr(data.subtitle, lang)}
      </p>
      <Body data={data} lang={lang} className="text-sm sm:hidden" />
    </div>
  );
}

function Text({ data, lang }: FeatureProps) {
  return (
    <div className={cn("py-2", data.className)}>
      <p className="font-semibold">{tr(data.title, lang)}</p>
      {tr(data.subtitle, lang) ? <p className="text-sm opacity-80">{tr(data.subtitle, lang)}</p> : null}
      <Body data={data} lang={lang} className="text-sm" />
    </div>
  );
}

/** A timeline step lights up once a tenth of it has scrolled into view; step 3 has a dashed line. */
function Timeline({ data, lang, index = 0 }: FeatureProps) {
  const ref = useRef<HTMLLIElement>(null);
  // Dark in the server's HTML and the first render alike (hydration compares them); lit at once
  // where the browser cannot tell what is in view.
  const [seen, setSeen] = useState(false);
  const hydrated = useHydrated();
  const active = seen || (hydrated && typeof IntersectionObserver === "undefined");
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver(([e]) => e?.isIntersecting && setSeen(true), { threshold: 0.1 });
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return (
    <li ref={ref} data-active={active} className={cn("relative pb-10 pl-12", data.className)}>
      <span aria-hidden className={cn("absolute left-[15px] top-8 h-full border-l-2", index === 2 ? "border-dashed border-emerald-400" : "border-solid border-emerald-700")} />
      <span aria-hidden className={cn("absolute left-0 top-0 inline-flex h-8 w-8 items-center justify-center rounded-full text-sm font-bold", active ? "bg-emerald-700 text-white" : "bg-emerald-100 text-emerald-900")}>
        {index + 1}
      </span>
      <p className="text-sm font-medium uppercase tracking-wide text-emerald-800">{tr(data.subtitle, lang)}</p>
      <h3 className="text-xl font-semibold">{tr(data.title, lang)}</h3>
      <Body data={data} lang={lang} className="mt-1" />
    </li>
  );
}

function Faq({ data, lang }: FeatureProps) {
  return (
    <details className={cn("group rounded-2xl border border-emerald-100 bg-white px-5 py-4 open:shadow-sm", data.className)}>
      <summary className="flex cursor-pointer list-none items-center justify-between gap-4 text-lg font-medium">
        {tr(data.title, lang)}
        <span aria-hidden className="text-2xl text-emerald-700 transition-transform group-open:rotate-45">+</span>
      </summary>
      <Body data={data} lang={lang} className="mt-3 text-neutral-700" />
    </details>
  );
}

function QrCode({ data, lang }: FeatureProps) {
  return (
    <div className={cn("flex flex-col items-center gap-3 text-center", data.className)}>
      <Img file={filesOf(data)[0]} className="h-56 w-56 rounded-xl bg-white p-2" />
      <p className="font-semibold">{tr(data.title, lang)}</p>
      <p className="text-sm opacity-80">{tr(data.subtitle, lang)}</p>
    </div>
  );
}

function Celebrity({ data, lang }: FeatureProps) {
  return (
    <figure className={cn("flex flex-col items-center text-center", data.className)}>
      <Img file={filesOf(data)[0]} className="h-40 w-40 rounded-full object-cover" />
      <figcaption className="mt-4">
        <p className="text-lg font-semibold">{tr(data.title, lang)}</p>
        <p className="text-sm text-emerald-800">{tr(data.subtitle, lang)}</p>
      </figcaption>
      <Body data={data} lang={lang} className="mt-2 text-sm" />
    </figure>
  );
}

function Card({ data, lang, dark }: FeatureProps & { dark: boolean }) {
  return (
    <div className={cn("flex flex-col rounded-3xl p-8", dark ? "bg-emerald-950 text-white" : "bg-white text-emerald-950 ring-1 ring-emerald-100", data.className)}>
      <h3 className="text-xl font-semibold">{tr(data.title, lang)}</h3>
      <p className="mt-2 text-4xl font-bold">{tr(data.subtitle, lang)}</p>
      <Body data={data} lang={lang} className="mt-4 flex-1" />
      <Arrays data={data} lang={lang} />
    </div>
  );
}

/** Feature variants (SPEC §2, features for planet): every variant the server declares for features. */
const features = {
  default: Default,
  "for-planet-gallery": Gallery,
  "for-planet-headline": Headline,
  "for-planet-how-it-works": HowItWorks,
  "for-planet-requisite": Requisite,
  "for-planet-text": Text,
  "for-planet-timeline": Timeline,
  "for-planet-faq": Faq,
  "for-planet-qr-code": QrCode,
  "for-planet-celebrity": Celebrity,
  "for-planet-white-card": (p) => <Card {...p} dark={false} />,
  "for-planet-black-card": (p) => <Card {...p} dark />,
} satisfies Record<DeclaredVariant<"website-builder", "feature">, (p: FeatureProps) => React.ReactNode>;
export const FEATURES: Record<string, (p: FeatureProps) => React.ReactNode> = features;

/** A feature by its variant; an unknown variant renders nothing (a marker in development builds). */
export function Feature(props: FeatureProps) {
  const variant = props.data.variant ?? "default";
  const C = FEATURES[variant];
  return C ? <C {...props} /> : <UnknownVariant module="website-builder" variant={`feature:${variant}`} />;
}

export function Features({ data, lang, variant }: { data: Rec; lang: string; variant?: string }) {
  return (
    <>
      {linked(data, "widgets-to-features", variant).map((f, i) => (
        <Feature key={f.id} data={f} lang={lang} index={i} />
      ))}
    </>
  );
}
