//! "Read next" under an article: articles of its categories, newest first, then the newest others
//! (`relatedArticles`). The page bundle does not say which categories hold an article (the
//! relation hangs below the category), so the browser asks the public API once the page is live;
//! the server rendering nothing here keeps hydration exact.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api } from "@/api/client";
import { tr, type Rec } from "@/site/content";
import { relatedArticles, titledIn } from "./article-meta";
import { ArticleMeta, articleUrl } from "./parts";
import { useWidgetsT } from "@/site/widgets-i18n";

/** Articles shown under one. */
const SHOWN = 3;
const byArticle = (id: string) => JSON.stringify({ and: [{ column: "articleId", method: "eq", value: id }] });
const inArray = (column: string, ids: string[]) => JSON.stringify({ and: [{ column, method: "inArray", value: ids }] });
const asRec = (r: { id: string }): Rec => ({ ...r, _entity: "blog.article" }) as Rec;

/** The articles sharing a category with `id` (without it), and the newest articles. */
async function fetchRelated(id: string): Promise<{ sameCategory: Rec[]; newest: Rec[] }> {
  const [links, newest] = await Promise.all([
    api.get("/api/blog/categories-to-articles", { params: { query: { filters: byArticle(id), limit: 20 } } }),
    api.get("/api/blog/articles", { params: { query: { orderBy: JSON.stringify([{ column: "createdAt", method: "desc" }]), limit: SHOWN * 3 } } }),
  ]);
  const categories = [...new Set(links.map((l) => l.categoryId))];
  let sameCategory: Rec[] = [];
  if (categories.length) {
    const siblings = await api.get("/api/blog/categories-to-articles", { params: { query: { filters: inArray("categoryId", categories), limit: 100 } } });
    const ids = [...new Set(siblings.map((l) => l.articleId))].filter((a) => a !== id);
    if (ids.length) sameCategory = (await api.get("/api/blog/articles", { params: { query: { filters: inArray("id", ids), limit: 100 } } })).map(asRec);
  }
  return { sameCategory, newest: newest.map(asRec) };
}

/** Up to three articles to read after `article`, as compact links; nothing while loading or when
 * there is no other article. */
export function RelatedArticles({ article, lang }: { article: Rec; lang: string }) {
  const t = useWidgetsT();
  const q = useQuery({ queryKey: ["blog", "related", article.id], queryFn: () => fetchRelated(article.id), staleTime: 60_000 });
  const items = q.data ? relatedArticles(article.id, q.data.sameCategory, q.data.newest, SHOWN, titledIn(lang)) : [];
  if (!items.length) return null;
  return (
    <aside aria-labelledby="related-articles" className="mx-auto max-w-3xl px-4 pb-12 sm:px-6" data-testid="related-articles">
      <h2 id="related-articles" className="border-t border-neutral-200 pt-8 text-2xl font-bold tracking-tight">
        {t("widgets.blog.related")}
      </h2>
      <ul className="mt-6 grid gap-4">
        {items.map((a) => (
          <li key={a.id} className="group relative rounded-2xl border border-neutral-200 p-5 focus-within:ring-2 focus-within:ring-emerald-700 hover:shadow-md">
            <ArticleMeta article={a} lang={lang} />
            <Link to={articleUrl(a, lang)} className="mt-1 block text-lg font-semibold leading-snug outline-none after:absolute after:inset-0 group-hover:underline">
              {tr(a.title, lang)}
            </Link>
          </li>
        ))}
      </ul>
    </aside>
  );
}
