import { useQuery } from "@tanstack/react-query";
import { lazy, type ReactNode, Suspense, useId, useState } from "react";
import { toast } from "sonner";
import { useTranslation } from "@/i18n";
import { entityClient, type ListParams, type Row } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityName, inPhrase } from "@/api/meta";
import { Button } from "@/ui/button";
import { useToolsT } from "./i18n";

// CSV (and papaparse) load on first use.
const CsvImportDialog = lazy(() => import("./csv-import"));

const PAGE = 20;

/** A timestamp in the reader's language ("" for none; the raw text when it is not a date). */
export function when(at: unknown, lang: string): string {
  if (typeof at !== "string" || !at) return "";
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toLocaleString(lang, { dateStyle: "short", timeStyle: "medium" });
}

export interface Column {
  title: string;
  render: (row: Row) => ReactNode;
  className?: string;
}

/**
 * A module's list of an entity in the admin: a title, status filter buttons, newest rows first,
 * the given columns, and paging (the next page is offered while pages are full).
 */
export function FilteredList({
  path,
  title,
  help,
  statuses,
  statusLabel,
  columns,
  testId,
  actions,
  search,
  extra,
}: {
  path: string;
  title: string;
  help?: string;
  /** Buttons beside the title (actions on the whole list). */
  actions?: ReactNode;
  statuses: readonly string[];
  statusLabel: (status: string) => string;
  columns: Column[];
  testId: string;
  /** A search box: its label, and the conditions a query asks for (a number, an address). */
  search?: { label: string; params: (query: string) => Pick<ListParams, "search" | "conditions"> };
  /** What the list shows beside each row's own fields, read for a page at once (merged by id). */
  extra?: { key: string; fetch: (rows: Row[]) => Promise<Row[]> };
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(0);
  const [query, setQuery] = useState("");
  const asked = query.trim() && search ? search.params(query.trim()) : {};
  const list = useQuery({
    queryKey: ["entity", path, "filtered", status, page, asked],
    queryFn: ({ signal }) => entityClient({ path }).list({ page, size: PAGE, sort: { field: "createdAt", desc: true }, filters: status ? { status } : undefined, ...asked }, signal),
    placeholderData: (p) => p,
  });
  const own = list.data?.data ?? [];
  const ids = own.map((r) => r.id);
  const more = useQuery({
    queryKey: ["entity", path, "extra", extra?.key, ids],
    queryFn: () => extra!.fetch(own),
    enabled: !!extra && ids.length > 0,
    placeholderData: (p) => p,
  });
  const byId = new Map((more.data ?? []).map((r) => [r.id, r]));
  const rows = own.map((r) => ({ ...r, ...byId.get(r.id) }));
  return (
    <section aria-labelledby={headingId}>
      <div className="flex flex-wrap items-center gap-3">
        <h1 id={headingId} className="text-xl font-semibold">
          {title}
        </h1>
        {actions ? <div className="ml-auto flex gap-2">{actions}</div> : null}
      </div>
      {help ? <p className="mt-1 text-sm text-neutral-700">{help}</p> : null}
      {search ? (
        <input
          type="search"
          className="mt-4 h-9 w-full max-w-sm rounded-md border border-border px-3 text-sm"
          placeholder={search.label}
          aria-label={search.label}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setPage(0);
          }}
        />
      ) : null}
      {statuses.length ? (
        <fieldset className="mt-4 flex flex-wrap gap-2">
          <legend className="sr-only">{t("orders.filter")}</legend>
          {["", ...statuses].map((s) => (
            <Button
              key={s || "all"}
              size="sm"
              variant={status === s ? "default" : "outline"}
              aria-pressed={status === s}
              onClick={() => {
                setStatus(s);
                setPage(0);
              }}
            >
              {s ? statusLabel(s) : t("orders.all")}
            </Button>
          ))}
        </fieldset>
      ) : null}
      {/* On a phone the columns scroll sideways inside the list, not the page. */}
      <div className="mt-4 overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid={testId}>
          <thead className="border-b border-border text-xs uppercase tracking-wide text-neutral-600">
            <tr>
              {columns.map((c) => (
                <th key={c.title} className="py-2 pr-3">
                  {c.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className="border-b border-border hover:bg-muted">
                {columns.map((c) => (
                  <td key={c.title} className={c.className ?? "py-2 pr-3"}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.isPending && rows.length === 0 ? <p className="mt-4 text-sm text-neutral-700">{t("admin.noFound")}</p> : null}
      <nav aria-label={t("orders.pages")} className="mt-4 flex items-center gap-2">
        <Button size="sm" variant="outline" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
          {t("admin.previous")}
        </Button>
        <span className="text-sm">{t("admin.page", { page: page + 1 })}</span>
        <Button size="sm" variant="outline" disabled={rows.length < PAGE} onClick={() => setPage((p) => p + 1)}>
          {t("admin.next")}
        </Button>
      </nav>
    </section>
  );
}

/** A titled list of a record's related rows, or a dash when there are none. */
export function RelatedList<T extends { id: string }>({ title, items, testId, render }: { title: string; items: T[]; testId?: string; render: (item: T) => ReactNode }) {
  return (
    <section>
      <h3 className="font-semibold">{title}</h3>
      {items.length ? (
        <ul className="mt-1 space-y-1">
          {items.map((i) => (
            <li key={i.id} data-testid={testId}>
              {render(i)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-neutral-700">—</p>
      )}
    </section>
  );
}

/**
 * An entity table's CSV tools: Export downloads every row the table's search, filters and
 * order select (all pages, 100 rows a request); Import opens the checked import with a preview.
 */
export function EntityListTools({ entity, params }: { entity: EntityMeta; params: Omit<ListParams, "page" | "size"> }) {
  const tt = useToolsT();
  const { i18n } = useTranslation();
  const [exporting, setExporting] = useState<number | null>(null);
  const [importing, setImporting] = useState(false);
  // Named in the admin's words for a screen reader ("Export CSV: articles").
  const name = inPhrase(entityName(entity, i18n.language, true));

  async function exportCsv() {
    setExporting(0);
    try {
      const csv = await import("./csv");
      const rows = await csv.fetchAll(entity, params, setExporting);
      csv.downloadCsv(csv.csvFilename(entity), csv.buildCsv(entity, rows));
      toast.success(tt("csv.exported", { count: rows.length }));
    } catch (e) {
      toast.error(e instanceof ApiError ? e.first : String(e));
    } finally {
      setExporting(null);
    }
  }

  return (
    <>
      <Button size="sm" variant="outline" disabled={exporting !== null} onClick={() => void exportCsv()} aria-label={`${tt("csv.export")}: ${name}`} data-testid="csv-export">
        {exporting === null ? tt("csv.export") : tt("csv.exporting", { rows: exporting })}
      </Button>
      {entity.ops.create && entity.ops.bulk ? (
        <Button size="sm" variant="outline" onClick={() => setImporting(true)} aria-label={`${tt("csv.import")}: ${name}`}>
          {tt("csv.import")}
        </Button>
      ) : null}
      {importing ? (
        <Suspense fallback={null}>
          <CsvImportDialog entity={entity} open onOpenChange={setImporting} />
        </Suspense>
      ) : null}
    </>
  );
}
