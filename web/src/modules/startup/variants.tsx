//! startup's public widget: a landing block written in the widget's own record — a heading, a lead
//! line and rich text — for the campaign's pages. A record with none of them shows nothing (no empty
//! box on the page).
import { hasText, RichText, richOf } from "@/site/rich-text";
import { tr, type Rec } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { cn } from "@/ui/cn";

/** Whether a startup widget has anything to show in `lang`. */
export function hasLanding(data: Rec, lang: string): boolean {
  return Boolean(tr(data.title, lang) || tr(data.subtitle, lang) || hasText(richOf(data.description, lang)));
}

function LandingBlock({ data, lang }: VariantProps) {
  if (!hasLanding(data, lang)) return null;
  const title = tr(data.title, lang);
  const subtitle = tr(data.subtitle, lang);
  return (
    <section id={typeof data.anchor === "string" && data.anchor ? data.anchor : undefined} className={cn("mx-auto max-w-7xl scroll-mt-20 px-4 py-12 sm:px-6 lg:px-8", data.className)} data-variant={data.variant} data-testid="startup-landing">
      <div className="rounded-3xl bg-gradient-to-br from-emerald-900 to-emerald-700 px-6 py-12 text-white sm:px-12 sm:py-16">
        {title ? <h2 className="max-w-3xl text-3xl font-bold tracking-tight sm:text-4xl">{title}</h2> : null}
        {subtitle ? <p className="mt-4 max-w-2xl text-xl text-emerald-50">{subtitle}</p> : null}
        <RichText value={richOf(data.description, lang)} className="mt-6 max-w-3xl text-lg text-emerald-50" />
      </div>
    </section>
  );
}

/** Every declared variant of startup widgets. */
export const variants = { default: LandingBlock } satisfies VariantsOf<"startup">;
