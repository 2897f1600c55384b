import { useQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import { useId } from "react";
import { Link, useLocation, useParams } from "react-router";
import { api } from "@/api/client";
import type { components } from "@/api/schema";
import { useScreenTitle } from "./screen-title";
import { chunkCatalogue } from "@/i18n/chunk";
import { Button } from "@/ui/button";
import { Input } from "@/ui/input";

// The site's search screen (`/{lang}/search?q=`, a built-in route): a form that works without
// JavaScript (GET to itself), and the results of `GET /api/host/search` with the words found marked.

type Found = components["schemas"]["SiteSearch"];
type Part = Found["results"][number]["title"][number];

const words = chunkCatalogue(
  "search",
  {
    search: {
      title: "Search",
      titleOf: "Search: {{q}}",
      label: "Search the site",
      submit: "Find",
      hint: "Articles, products and pages, by any form of a word.",
      tooShort: "Type a word of at least three letters.",
      none: "Nothing found for “{{q}}”. Try another word or a shorter one.",
      found_one: "{{count}} result for “{{q}}”",
      found_other: "{{count}} results for “{{q}}”",
      failed: "The search did not answer. Try again in a moment.",
      searching: "Searching…",
      fuzzy: "Nothing matches “{{q}}” exactly: these hold words spelled a little differently.",
    },
  },
  {
    search: {
      title: "Поиск",
      titleOf: "Поиск: {{q}}",
      label: "Поиск по сайту",
      submit: "Найти",
      hint: "Статьи, товары и страницы — по любой форме слова.",
      tooShort: "Введите слово хотя бы из трёх букв.",
      none: "По запросу «{{q}}» ничего не нашлось. Попробуйте другое слово или короче.",
      found_one: "{{count}} результат по запросу «{{q}}»",
      found_few: "{{count}} результата по запросу «{{q}}»",
      found_many: "{{count}} результатов по запросу «{{q}}»",
      found_other: "{{count}} результата по запросу «{{q}}»",
      failed: "Поиск не ответил. Попробуйте ещё раз через минуту.",
      searching: "Ищем…",
      fuzzy: "Точных совпадений с «{{q}}» нет: вот результаты со словами, написанными чуть иначе.",
    },
  },
);

/** Text parts, the ones holding a word of the query marked. */
function Marked({ parts }: { parts: Part[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.match ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-inherit">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}

export default function SearchScreen() {
  const t = words.useT();
  const { lang = "ru" } = useParams();
  const q = (new URLSearchParams(useLocation().search).get("q") ?? "").trim().slice(0, 100);
  const inputId = useId();
  useScreenTitle(q ? t("search.titleOf", { q }) : t("search.title"));
  const found = useQuery({
    queryKey: ["site-search", lang, q],
    queryFn: ({ signal }): Promise<Found> => api.get("/api/host/search", { params: { query: { q, lang: lang === "en" ? "en" : "ru" } }, signal }),
    enabled: q.length > 0,
    staleTime: 60_000,
  });
  const results = found.data?.results ?? [];
  return (
    <section className="mx-auto max-w-3xl px-4 py-12" data-testid="site-search">
      <h1 className="text-3xl font-bold">{t("search.title")}</h1>
      <search aria-label={t("search.label")}>
      <form action={`/${lang}/search`} method="get" className="mt-6 flex gap-2">
        <label htmlFor={inputId} className="sr-only">
          {t("search.label")}
        </label>
        <Input id={inputId} type="search" name="q" defaultValue={q} key={q} maxLength={100} placeholder={t("search.label")} className="h-11 flex-1 text-base" autoComplete="off" />
        <Button type="submit" className="h-11">
          <Search aria-hidden className="mr-1 h-4 w-4" />
          {t("search.submit")}
        </Button>
      </form>
      </search>
      <p className="mt-2 text-sm text-neutral-700">{t("search.hint")}</p>
      <div aria-live="polite" className="mt-8">
        {!q ? null : found.isPending ? (
          <p className="text-neutral-700">{t("search.searching")}</p>
        ) : found.isError ? (
          <p role="alert" className="text-destructive">
            {t("search.failed")}
          </p>
        ) : found.data?.tooShort ? (
          <p>{t("search.tooShort")}</p>
        ) : !results.length ? (
          <p data-testid="search-none">{t("search.none", { q })}</p>
        ) : (
          <>
            {found.data?.fuzzy ? (
              <p className="mb-1 text-sm" data-testid="search-fuzzy">
                {t("search.fuzzy", { q })}
              </p>
            ) : null}
            <p className="text-sm text-neutral-700" data-testid="search-count">
              {t("search.found", { count: results.length, q })}
            </p>
            <ol className="mt-4 grid gap-6" aria-label={t("search.titleOf", { q })}>
              {results.map((r, i) => (
                <li key={`${i}-${r.url}`} data-testid="search-result">
                  <p className="text-xs font-medium uppercase tracking-wide text-neutral-700">{r.kind}</p>
                  <Link to={r.url} className="text-lg font-semibold underline-offset-4 hover:underline">
                    <Marked parts={r.title} />
                  </Link>
                  {r.snippet.length ? (
                    <p className="mt-1 text-sm text-neutral-800">
                      <Marked parts={r.snippet} />
                    </p>
                  ) : null}
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
    </section>
  );
}
