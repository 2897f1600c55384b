import { useDeferredValue, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { type TFunction, useTranslation } from "@/i18n";
import { toast } from "sonner";
import { entityClient, keys, type ListParams, type Row, useEntityDelete, useEntityList } from "@/api/entities";
import { ApiError, type Page } from "@/api/http";
import { type EntityMeta, entityName, type FieldMeta, fieldName, findEntity, inPhrase, type Meta, valueName } from "@/api/meta";
import { Button } from "@/ui/button";
import { ConfirmDialog, Dialog, DialogContent } from "@/ui/dialog";
import { Input } from "@/ui/input";
import { EntityForm, type FormProps, formTitle } from "./form";
import { RecordTabs } from "./history";
import { Pager } from "./pager";
import { CopyId, MissingBadges, ReferenceLink, useEditParam, useMissingFilter, useReferenceTitles } from "./records";
import { useRecordsT } from "./records-i18n";
import { rowTitle } from "./schema";
import { BulkBar, SelectAll, SelectRow, selectable, useSelection } from "./bulk";
import { EntityListTools } from "./list";
import { publishable } from "./preview-url";
import { RelationList, relationHeading, relationSide } from "./relation-list";
import { StatusBadge } from "./publishing";

export const PAGE_SIZE = 20;

function cell(f: FieldMeta | undefined, v: unknown, lang: string, t: TFunction): string {
  if (v === null || v === undefined) return "";
  if (f?.kind === "enum" && typeof v === "string") return valueName(f, v, lang);
  // A moment in the reader's language and time zone ("01.12.2026, 10:30"), never an ISO string.
  if (f?.kind === "timestamp" && typeof v === "string") {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? v : d.toLocaleString(lang, { dateStyle: "short", timeStyle: "short" });
  }
  if (typeof v === "boolean") return v ? t("admin.yes") : t("admin.no");
  if (f?.kind === "translations" && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return String(o[lang] ?? Object.values(o).find((x) => x) ?? "");
  }
  if (typeof v === "object") return JSON.stringify(v).slice(0, 80);
  if (f?.kind === "reference" || f?.kind === "uuid") return String(v).slice(0, 8);
  return String(v);
}

/** The columns of a table: id, then the declared list columns (a sub-table skips the fixed one). */
export function columnsOf(e: EntityMeta, fixedField?: string): FieldMeta[] {
  const byName = new Map(e.fields.map((f) => [f.name, f]));
  const names = e.listColumns.length ? e.listColumns : e.fields.filter((f) => f.kind === "reference").map((f) => f.name);
  const cols = names.filter((n) => n !== fixedField && n !== "id").map((n) => byName.get(n)).filter((f): f is FieldMeta => !!f);
  const order = byName.get("orderIndex");
  if (fixedField && order && !cols.includes(order)) cols.push(order);
  return cols.slice(0, 6);
}

interface TableProps {
  entity: EntityMeta;
  meta: Meta;
  lang: string;
  fixed?: { field: string; value: string };
  compact?: boolean;
}

/** Any entity as a table: search, sort, server-side paging, add, edit, delete, reorder. */
export function EntityTable({ entity, meta, lang, fixed, compact }: TableProps) {
  const { t } = useTranslation();
  const rt = useRecordsT();
  const [hidden, setHidden] = useState(false);
  const [search, setSearch] = useState("");
  const deferredSearch = useDeferredValue(search);
  const [sort, setSort] = useState<ListParams["sort"]>(null);
  const [page, setPage] = useState(0);
  // A record link (`?edit=<id>`) opens that record's form in the entity's own table.
  const [editParam, clearEditParam] = useEditParam();
  const [editing, setEditing] = useState<{ id: string | null } | null>(() => (!fixed && editParam ? { id: editParam } : null));
  const [deleting, setDeleting] = useState<Row | null>(null);
  const missing = useMissingFilter(entity, meta.languages);
  const qc = useQueryClient();
  const base: ListParams = {
    search: deferredSearch,
    sort,
    page: 0,
    size: PAGE_SIZE,
    filters: fixed ? { [fixed.field]: fixed.value } : undefined,
    conditions: missing.conditions,
  };
  // A page starts at the cursor the page before it answered (X-Next-Cursor), read from the
  // query cache: deep pages stay as cheap as the first and go past the server's 10 000-row
  // offset limit. Without one (the page before fell out of the cache) it falls back to an offset.
  let after: string | undefined;
  for (let p = 0; p < page; p++) {
    after = qc.getQueryData<Page<Row[]>>(keys.list(entity.path, { ...base, page: p, after }))?.next;
  }
  const params: ListParams = { ...base, page, after };
  const list = useEntityList(entity, params, !hidden);
  const remove = useEntityDelete(entity);
  const columns = columnsOf(entity, fixed?.field);
  const rows = list.data?.data ?? [];
  // Reference cells show their targets' titles: one request per target entity for the page.
  const titles = useReferenceTitles(meta, columns, rows);
  const total = list.data?.total ?? null;
  const exact = list.data?.exact ?? true;
  // A capped or estimated count cannot say where the last page is: paging goes on while pages are full.
  const pages = total === null || !exact ? null : Math.max(1, Math.ceil(total / PAGE_SIZE));
  // A narrowed list's count stops one past its cap ("1 000+"); a whole table's may be an estimate.
  const capped = !exact && (!!params.search?.trim() || !!fixed);
  const formatted = total === null ? "" : new Intl.NumberFormat(lang).format(capped ? total - 1 : total);
  const reorderable = !!fixed && entity.fields.some((f) => f.name === "orderIndex") && entity.ops.update;
  const name = `${entity.module}.${entity.name}`;
  const selection = useSelection();
  const picking = selectable(entity);
  const drafts = publishable(entity);

  async function move(index: number, by: -1 | 1) {
    const target = index + by;
    if (target < 0 || target >= rows.length) return;
    const order = rows.map((r) => r.id);
    [order[index], order[target]] = [order[target]!, order[index]!];
    const c = entityClient(entity);
    try {
      for (const [i, id] of order.entries()) {
        const r = rows.find((x) => x.id === id);
        const want = page * PAGE_SIZE + i;
        if (r && r.orderIndex !== want) await c.update(id, { orderIndex: want });
      }
      await list.refetch();
    } catch (e) {
      toast.error(e instanceof ApiError ? e.first : String(e));
    }
  }

  function toggleSort(f: string) {
    setPage(0);
    setSort((s) => (s?.field !== f ? { field: f, desc: false } : s.desc ? null : { field: f, desc: true }));
  }

  return (
    <div className="grid gap-3" data-entity={name}>
      <div className="flex flex-wrap items-center gap-2">
        <h2 className={compact ? "text-base font-semibold" : "text-xl font-semibold"}>{entityName(entity, lang, true)}</h2>
        <span className="text-sm text-muted-foreground" data-testid="total">
          {total === null ? "" : exact ? t("admin.rows", { formatted }) : capped ? t("admin.capped", { formatted }) : t("admin.about", { formatted })}
        </span>
        <div className="ml-auto flex flex-wrap gap-2">
          {compact ? null : <EntityListTools entity={entity} params={params} />}
          {entity.ops.create ? (
            <Button size="sm" onClick={() => setEditing({ id: null })} aria-label={t("admin.addNamed", { name: inPhrase(entityName(entity, lang)) })} data-shortcut="new">
              {t("admin.addNew")}
            </Button>
          ) : null}
          <Button size="sm" variant="outline" onClick={() => setHidden((h) => !h)} aria-expanded={!hidden} aria-label={`${hidden ? t("admin.show") : t("admin.hide")}: ${inPhrase(entityName(entity, lang, true))}`}>
            {hidden ? t("admin.show") : t("admin.hide")}
          </Button>
        </div>
      </div>
      {hidden ? null : (
        <>
          <Input
            type="search"
            placeholder={t("admin.search")}
            aria-label={`${t("admin.search")}: ${inPhrase(entityName(entity, lang, true))}`}
            data-shortcut="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setPage(0);
            }}
            className="max-w-sm"
          />
          {missing.control}
          {picking ? <BulkBar entity={entity} selection={selection} titleOf={(id) => rowTitle(entity, rows.find((x) => x.id === id) ?? { id }, lang)} /> : null}
          <div className="relative overflow-x-auto rounded-md border border-border">
            <table className="w-full text-sm">
              <thead className="bg-muted text-left">
                <tr>
                  {picking ? (
                    <th scope="col" className="w-8 px-3 py-2">
                      <SelectAll ids={rows.filter((r) => missing.keeps(r)).map((r) => r.id)} selection={selection} />
                    </th>
                  ) : null}
                  <th scope="col" className="px-3 py-2 font-medium">
                    {t("admin.idColumn")}
                  </th>
                  {columns.map((c) => (
                    <th key={c.name} scope="col" className="px-3 py-2 font-medium" aria-sort={sort?.field === c.name ? (sort.desc ? "descending" : "ascending") : "none"}>
                      {!c.sortable ? (
                        fieldName(c, lang)
                      ) : (
                        <button type="button" className="cursor-pointer hover:underline" onClick={() => toggleSort(c.name)}>
                          {fieldName(c, lang)}
                          {sort?.field === c.name ? (sort.desc ? " ↓" : " ↑") : ""}
                        </button>
                      )}
                    </th>
                  ))}
                  <th scope="col" className="px-3 py-2">
                    <span className="sr-only">{t("admin.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => !missing.keeps(r) ? null : (
                  <tr key={r.id} className="border-t border-border" data-row={r.id}>
                    {picking ? (
                      <td className="px-3 py-2">
                        <SelectRow id={r.id} title={rowTitle(entity, r, lang)} selection={selection} />
                      </td>
                    ) : null}
                    <td className="px-3 py-2">
                      <div className="flex items-center gap-1">
                        <CopyId id={r.id} />
                        <MissingBadges entity={entity} row={r} languages={meta.languages} />
                      </div>
                    </td>
                    {columns.map((c) => (
                      <td key={c.name} className="max-w-64 truncate px-3 py-2">
                        {c.kind === "reference" ? (
                          <ReferenceLink value={r[c.name]} found={titles(c, r[c.name])} lang={lang} />
                        ) : c.name === "status" && drafts ? (
                          <StatusBadge status={r.status} publishAt={r.publishAt} lang={lang} />
                        ) : (
                          cell(c, r[c.name], lang, t)
                        )}
                      </td>
                    ))}
                    <td className="px-3 py-2">
                      <div className="flex justify-end gap-1">
                        {reorderable ? (
                          <>
                            <Button size="sm" variant="ghost" aria-label={`${t("admin.up")} ${rowTitle(entity, r, lang)}`} disabled={i === 0} onClick={() => void move(i, -1)}>
                              ↑
                            </Button>
                            <Button size="sm" variant="ghost" aria-label={`${t("admin.down")} ${rowTitle(entity, r, lang)}`} disabled={i === rows.length - 1} onClick={() => void move(i, 1)}>
                              ↓
                            </Button>
                          </>
                        ) : null}
                        {entity.ops.update ? (
                          <Button size="sm" variant="outline" onClick={() => setEditing({ id: r.id })}>
                            {t("admin.edit")}
                          </Button>
                        ) : (
                          <Button size="sm" variant="outline" onClick={() => setEditing({ id: r.id })}>
                            {rt("records.view")}
                          </Button>
                        )}
                        {entity.ops.delete ? (
                          <Button size="sm" variant="destructive" onClick={() => setDeleting(r)}>
                            {t("admin.delete")}
                          </Button>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {list.isSuccess && !rows.some(missing.keeps) ? <p className="px-3 py-6 text-center text-sm text-muted-foreground">{t("admin.noFound")}</p> : null}
            {list.isError ? (
              <p role="alert" className="px-3 py-6 text-center text-sm text-destructive">
                {list.error instanceof ApiError ? list.error.first : String(list.error)}
              </p>
            ) : null}
          </div>
          <Pager label={`${t("orders.pages")}: ${inPhrase(entityName(entity, lang, true))}`} page={page} pages={pages} more={rows.length >= PAGE_SIZE} onPage={setPage} />
        </>
      )}
      {editing ? (
        <EntityFormDialog
          key={editing.id ?? "new"}
          open
          onOpenChange={(o) => {
            if (o) return;
            setEditing(null);
            if (!fixed && editParam) clearEditParam();
          }}
          entity={entity}
          meta={meta}
          lang={lang}
          id={editing.id}
          fixed={fixed ? { [fixed.field]: fixed.value } : undefined}
        />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => (o ? undefined : setDeleting(null))}
        title={t("admin.deleteQuestion")}
        cancel={t("admin.cancel")}
        confirm={t("admin.delete")}
        onConfirm={() => {
          const r = deleting;
          setDeleting(null);
          if (r)
            remove.mutate(r.id, {
              onError: (e) => toast.error(e instanceof ApiError ? e.first : String(e)),
            });
        }}
      />
      <span className="sr-only">{entityName(entity, lang)}</span>
    </div>
  );
}

/**
 * Everything that points at record `id`, below the record's form: each relation as the list of
 * what it links (ordered, with a picker: `relation-list.tsx`), anything else as a table kept to
 * the rows pointing at it.
 */
function ReferencingTables({ entity, meta, lang, id }: { entity: EntityMeta; meta: Meta; lang: string; id: string }) {
  const [settings, setSettings] = useState<{ entity: EntityMeta; id: string; field: string } | null>(null);
  return (
    <>
      {entity.referencedBy.map((r) => {
        const sub = findEntity(meta, `${r.module}.${r.name}`);
        if (!sub) return null;
        const side = relationSide(meta, sub, r.field);
        const table = <EntityTable entity={sub} meta={meta} lang={lang} fixed={{ field: r.field, value: id }} compact />;
        return (
          <section key={`${r.module}.${r.name}.${r.field}`} aria-label={side ? relationHeading(side, lang) : entityName(sub, lang, true)} className="rounded-lg border border-border p-3">
            {side ? <RelationList side={side} meta={meta} lang={lang} id={id} overflow={table} onSettings={(link) => setSettings({ entity: sub, id: link, field: r.field })} /> : table}
          </section>
        );
      })}
      {settings ? (
        <EntityFormDialog
          open
          onOpenChange={(o) => (o ? undefined : setSettings(null))}
          entity={settings.entity}
          meta={meta}
          lang={lang}
          id={settings.id}
          fixed={{ [settings.field]: id }}
        />
      ) : null}
    </>
  );
}

/**
 * A record in a dialog: its tabs, its form and the tables of what points at it. Here, not in
 * `form.tsx`: the table opens it and it shows tables, so the form module needs neither.
 */
export function EntityFormDialog({
  open,
  onOpenChange,
  ...props
}: Omit<FormProps, "onSaved" | "children"> & { open: boolean; onOpenChange: (o: boolean) => void }) {
  const { t } = useTranslation();
  // Mounted per edit (the table keys it), so the first id is the right one.
  const [id, setId] = useState(props.id);
  const title = id && !props.entity.ops.update ? entityName(props.entity, props.lang) : formTitle(t, props.entity, props.lang, !!id);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={title} className="w-[min(56rem,calc(100vw-2rem))]">
        {open ? (
          <RecordTabs entity={props.entity} meta={props.meta} lang={props.lang} id={id}>
            <EntityForm key={props.id ?? "new"} {...props} id={id} onSaved={(saved) => setId(saved)}>
              {id ? <ReferencingTables entity={props.entity} meta={props.meta} lang={props.lang} id={id} /> : null}
            </EntityForm>
          </RecordTabs>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
