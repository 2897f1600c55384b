// Bulk actions of an entity table: row checkboxes, "select all on this page", and a bar with
// the number selected, Delete (one DELETE per record: there is no bulk delete route) and Publish
// (PATCH `/bulk` with `status: published`, at most 100 per request). A record that fails is
// reported with the server's message and stays selected; the rest go ahead.
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { entityClient, keys } from "@/api/entities";
import { ApiError } from "@/api/http";
import type { EntityMeta } from "@/api/meta";
import { useTranslation } from "@/i18n";
import { Button } from "@/ui/button";
import { ConfirmDialog } from "@/ui/dialog";
import { bulkUpdate, type RowFailure, sendInChunks } from "./chunks";
import { useToolsT } from "./i18n";

export interface Selection {
  ids: ReadonlySet<string>;
  toggle: (id: string, on: boolean) => void;
  setMany: (ids: readonly string[], on: boolean) => void;
  clear: () => void;
}

/** The ids picked in a table (kept across its pages until cleared or acted on). */
export function useSelection(): Selection {
  const [ids, setIds] = useState<ReadonlySet<string>>(() => new Set());
  const setMany = useCallback((list: readonly string[], on: boolean) => {
    setIds((old) => {
      const next = new Set(old);
      for (const id of list) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  return useMemo(() => ({ ids, setMany, toggle: (id: string, on: boolean) => setMany([id], on), clear: () => setIds(new Set()) }), [ids, setMany]);
}

/** Can the records of `e` be published in bulk (a `status` field with the value `published`)? */
export function publishable(e: EntityMeta): boolean {
  return e.ops.update && e.ops.bulk && e.fields.some((f) => f.name === "status" && f.kind === "enum" && !!f.values?.includes("published"));
}

/** Does a table of `e` offer row selection? */
export function selectable(e: EntityMeta): boolean {
  return e.ops.delete || publishable(e);
}

const box = "size-4 cursor-pointer accent-neutral-900";

/** The header cell's checkbox: every row of the page on or off (mixed when some are). */
export function SelectAll({ ids, selection }: { ids: readonly string[]; selection: Selection }) {
  const tt = useToolsT();
  const ref = useRef<HTMLInputElement>(null);
  const picked = ids.filter((id) => selection.ids.has(id)).length;
  const all = ids.length > 0 && picked === ids.length;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = picked > 0 && !all;
  }, [picked, all]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className={box}
      aria-label={tt("bulk.selectPage")}
      checked={all}
      disabled={!ids.length}
      onChange={(e) => selection.setMany(ids, e.target.checked)}
    />
  );
}

/** A row's checkbox, named after the record. */
export function SelectRow({ id, title, selection }: { id: string; title: string; selection: Selection }) {
  const tt = useToolsT();
  return <input type="checkbox" className={box} aria-label={tt("bulk.select", { title })} checked={selection.ids.has(id)} onChange={(e) => selection.toggle(id, e.target.checked)} />;
}

/** Deletes each id (a few at a time); the ids that failed, with the server's message. */
export async function deleteEach(remove: (id: string) => Promise<unknown>, ids: readonly string[], onProgress?: (done: number) => void, parallel = 4): Promise<{ done: string[]; failed: { id: string; message: string }[] }> {
  const done: string[] = [];
  const failed: { id: string; message: string }[] = [];
  let next = 0;
  async function worker() {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        await remove(id);
        done.push(id);
      } catch (e) {
        failed.push({ id, message: e instanceof ApiError ? e.first : String(e) });
      }
      onProgress?.(done.length + failed.length);
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, ids.length) }, worker));
  return { done, failed };
}

/** Publishes each id through the bulk route; the ids that failed, with the server's message. */
export async function publishEach(e: Pick<EntityMeta, "path">, ids: readonly string[], onProgress?: (done: number) => void): Promise<{ done: string[]; failed: { id: string; message: string }[] }> {
  const r = await sendInChunks(
    ids.map((id, row) => ({ row, body: { id, data: { status: "published" } } })),
    bulkUpdate(e),
    { onProgress: (n) => onProgress?.(n) },
  );
  const bad = new Set(r.failed.map((f: RowFailure) => f.row));
  return { done: ids.filter((_, i) => !bad.has(i)), failed: r.failed.map((f) => ({ id: ids[f.row]!, message: f.message })) };
}

/** The bar over a table while records are selected: how many, Publish, Delete, and what failed. */
export function BulkBar({ entity, selection, titleOf }: { entity: EntityMeta; selection: Selection; titleOf: (id: string) => string }) {
  const { t } = useTranslation();
  const tt = useToolsT();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [failures, setFailures] = useState<{ id: string; message: string }[]>([]);
  const count = selection.ids.size;
  const busy = progress !== null;

  async function run(kind: "delete" | "publish") {
    const ids = [...selection.ids];
    setFailures([]);
    setProgress({ done: 0, total: ids.length });
    const onProgress = (done: number) => setProgress({ done, total: ids.length });
    try {
      const r = kind === "delete" ? await deleteEach(entityClient(entity).remove, ids, onProgress) : await publishEach(entity, ids, onProgress);
      selection.setMany(r.done, false);
      setFailures(r.failed);
      if (r.done.length) toast.success(tt(kind === "delete" ? "bulk.deleted" : "bulk.published", { count: r.done.length }));
    } finally {
      setProgress(null);
      await qc.invalidateQueries({ queryKey: keys.all(entity.path) });
    }
  }

  if (!count && !failures.length) return null;
  return (
    <section className="grid gap-2 rounded-md border border-border bg-muted/60 px-3 py-2 text-sm" aria-label={tt("bulk.selection")} data-testid="bulk-bar">
      {count ? (
        <div className="flex flex-wrap items-center gap-2">
          <span aria-live="polite" className="font-medium" data-testid="bulk-count">
            {busy ? tt("bulk.working", { done: progress.done, total: progress.total }) : tt("bulk.selected", { count })}
          </span>
          <div className="ml-auto flex flex-wrap gap-2">
            {publishable(entity) ? (
              <Button size="sm" variant="outline" disabled={busy} onClick={() => void run("publish")}>
                {tt("bulk.publish")}
              </Button>
            ) : null}
            {entity.ops.delete ? (
              <Button size="sm" variant="destructive" disabled={busy} onClick={() => setConfirming(true)}>
                {t("admin.delete")}
              </Button>
            ) : null}
            <Button size="sm" variant="ghost" disabled={busy} onClick={selection.clear}>
              {tt("bulk.clear")}
            </Button>
          </div>
        </div>
      ) : null}
      {failures.length ? (
        <div role="alert" className="text-destructive" data-testid="bulk-failures">
          <p className="font-medium">{tt("bulk.failed", { count: failures.length })}</p>
          <ul className="list-disc pl-5">
            {failures.map((f) => (
              <li key={f.id}>
                {titleOf(f.id)}: {f.message}
              </li>
            ))}
          </ul>
          <Button size="sm" variant="ghost" className="mt-1 text-neutral-900" onClick={() => setFailures([])}>
            {tt("bulk.dismiss")}
          </Button>
        </div>
      ) : null}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={tt("bulk.deleteQuestion", { count })}
        cancel={t("admin.cancel")}
        confirm={t("admin.delete")}
        onConfirm={() => {
          setConfirming(false);
          void run("delete");
        }}
      />
    </section>
  );
}
