// What the modules' public widgets are built of (their frame, stored files, cards, prices, rich
// text): the site kit's, so a module's widgets need no other module.
import { useTranslation } from "@/i18n";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { fileUrl, filesOf, formatPrice, tr, type Rec } from "./content";
import { RichText, richOf } from "./rich-text";
import { cn } from "@/ui/cn";
import { Media } from "@/ui/media";

/** Public content frame of module widgets: the widget's anchor as id, max width 7xl. */
export function Block({ data, lang, children, className }: { data: Rec; lang: string; children: ReactNode; className?: string }) {
  const title = tr(data.title, lang);
  return (
    <section id={data.anchor || undefined} className={cn("mx-auto max-w-7xl scroll-mt-20 px-4 py-12 sm:px-6 lg:px-8", data.className, className)} data-variant={data.variant}>
      {title ? <h2 className="mb-6 text-3xl font-bold tracking-tight">{title}</h2> : null}
      {children}
    </section>
  );
}

/** Widget lists: two columns. */
export function ListGrid({ children }: { children: ReactNode }) {
  return <div className="grid gap-6 md:grid-cols-2">{children}</div>;
}

interface StoredFileProps {
  file: Rec | undefined;
  className?: string;
  alt?: string;
  testId?: string;
  /** How wide the image is shown, for its `srcset` (see `Media`). */
  sizes?: string;
  /** Load at once, first (the page's first image); otherwise the page's first block decides. */
  priority?: boolean;
}

/** A file's alternative text in `lang`: its translation, else its `alt`. */
export function fileAlt(file: Rec, lang: string): string {
  const own = file.localizedAlt;
  if (own && typeof own === "object") {
    const v = (own as Record<string, unknown>)[lang];
    if (typeof v === "string" && v.trim()) return v;
  }
  return typeof file.alt === "string" ? file.alt : "";
}

/** A stored file record as an image or a video. */
export function StoredFile({ file, className, alt, testId, sizes, priority }: StoredFileProps) {
  const { i18n } = useTranslation();
  if (!file) return null;
  return (
    <Media
      src={fileUrl(file)}
      mimeType={typeof file.mimeType === "string" ? file.mimeType : null}
      alt={alt ?? fileAlt(file, i18n.language)}
      width={typeof file.width === "number" ? file.width : undefined}
      height={typeof file.height === "number" ? file.height : undefined}
      sizes={sizes}
      priority={priority}
      className={cn(typeof file.className === "string" ? file.className : undefined, className)}
      testId={testId}
    />
  );
}

/** The first file linked to a record. */
export function Cover({ data, className, sizes }: { data: Rec; className?: string; sizes?: string }) {
  return <StoredFile file={filesOf(data)[0]} className={cn("w-full object-cover", className)} sizes={sizes} />;
}

export function Card({ data, lang, to, children }: { data: Rec; lang: string; to?: string; children?: ReactNode }) {
  const title = tr(data.title, lang) || String(data.slug ?? "");
  return (
    <article className="flex flex-col overflow-hidden rounded-2xl border border-neutral-200 bg-white">
      <Cover data={data} className="aspect-[16/9]" sizes="(min-width: 768px) 50vw, 100vw" />
      <div className="flex flex-1 flex-col p-5">
        <h3 className="text-xl font-semibold">{to ? <Link to={to} className="hover:underline">{title}</Link> : title}</h3>
        {tr(data.subtitle ?? data.shortDescription, lang) ? <p className="mt-1 text-neutral-600">{tr(data.subtitle ?? data.shortDescription, lang)}</p> : null}
        {children}
      </div>
    </article>
  );
}

export function Prices({ data, lang, className }: { data: Rec; lang: string; className?: string }) {
  const prices = data._prices ?? [];
  if (!prices.length) return null;
  return (
    <p className={cn("flex flex-wrap gap-3 text-lg font-semibold text-emerald-900", className)} data-testid="prices">
      {prices.map((p) => (
        <span key={p.currency.id}>{formatPrice(p, lang)}</span>
      ))}
    </p>
  );
}

export function Body({ data, lang, field = "description" }: { data: Rec; lang: string; field?: string }) {
  return <RichText value={richOf(data[field], lang)} className="prose mt-4 max-w-3xl space-y-3 text-lg" />;
}
