//! An article's pieces that lists, the article page and "read next" share: its URL, its meta
//! line and its card.
import { Link } from "react-router";
import { tr, type Rec } from "@/site/content";
import { siteLink } from "@/site/link";
import { cn } from "@/ui/cn";
import { Cover } from "@/site/blocks";
import { authorOf, cardLayout, formatDate, publishedAt, readingMinutes } from "./article-meta";
import { useWidgetsT } from "@/site/widgets-i18n";

export const articleUrl = (a: Rec, lang: string) => siteLink(`/blog/articles/${a.slug}`, lang);

/** Date, author (when the article has one) and reading time, as one line. */
export function ArticleMeta({ article, lang, className }: { article: Rec; lang: string; className?: string }) {
  const t = useWidgetsT();
  const at = publishedAt(article);
  const author = authorOf(article, lang);
  const parts = [
    at ? (
      <time key="date" dateTime={at}>
        {formatDate(at, lang)}
      </time>
    ) : null,
    author ? <span key="author">{author}</span> : null,
    <span key="time">{t("widgets.blog.readingTime", { minutes: readingMinutes(article, lang) })}</span>,
  ].filter(Boolean);
  return (
    <p className={cn("flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-neutral-600", className)} data-testid="article-meta">
      {parts.map((p, i) => (
        <span key={i} className="contents">
          {i ? <span aria-hidden>·</span> : null}
          {p}
        </span>
      ))}
    </p>
  );
}

/**
 * An article in a list: with its cover on top, or compact — the same words on a tinted card with no
 * picture box — when it has no image (`cardLayout`). The title is the link.
 */
export function ArticleCard({ article, lang }: { article: Rec; lang: string }) {
  const title = tr(article.title, lang);
  const subtitle = tr(article.subtitle, lang);
  const layout = cardLayout(article);
  return (
    <article
      data-testid="article-card"
      data-layout={layout}
      className={cn(
        "group relative flex flex-col overflow-hidden rounded-2xl border transition-shadow focus-within:ring-2 focus-within:ring-emerald-700 hover:shadow-md",
        layout === "cover" ? "border-neutral-200 bg-white" : "border-emerald-100 bg-emerald-50/60",
      )}
    >
      {layout === "cover" ? <Cover data={article} className="aspect-[16/9]" sizes="(min-width: 768px) 50vw, 100vw" /> : null}
      <div className={cn("flex flex-col gap-2", layout === "cover" ? "p-5" : "p-5 sm:p-6")}>
        <ArticleMeta article={article} lang={lang} />
        <h3 className="text-xl font-semibold leading-snug">
          {/* The whole card is the link's target area; the link itself stays the title. */}
          <Link to={articleUrl(article, lang)} className="outline-none after:absolute after:inset-0 group-hover:underline">
            {title}
          </Link>
        </h3>
        {subtitle ? <p className="line-clamp-3 text-neutral-700">{subtitle}</p> : null}
      </div>
    </article>
  );
}

