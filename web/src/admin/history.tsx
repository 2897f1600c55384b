// A saved record's dialog: its draft controls (status, publish, schedule, preview) above two
// tabs, the record's form and its history — the audit entries of this record, newest first, each
// with its diff and a "Restore this version" (the server puts the record back as it was right
// after that entry, recorded as a restore; the form then shows the restored values).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useId, useState } from "react";
import { toast } from "sonner";
import { api } from "@/api/client";
import { keys, type Row } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityKey, type Meta } from "@/api/meta";
import { Button } from "@/ui/button";
import { ConfirmDialog } from "@/ui/dialog";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/ui/tabs";
import { ActionBadge, actorName, type AuditEntry, DiffView, subjectsOf, useAuditPage, usePeople } from "./audit-parts";
import { when } from "./list";
import { AdminLink } from "./records";
import { Pager } from "./pager";
import { DraftControls, RecordDirtyProvider } from "./publishing";
import { publishable } from "./preview-url";
import { useTrustT } from "./trust-i18n";

const PAGE = 10;

/** What a restore may be asked of: a record's state after a create, an update or a restore. */
const RESTORABLE = new Set(["create", "update", "restore"]);

export function HistoryPanel({ entity, meta, id, lang, onRestored }: { entity: EntityMeta; meta: Meta; id: string; lang: string; onRestored?: () => void }) {
  const t = useTrustT();
  const qc = useQueryClient();
  const heading = useId();
  const [page, setPage] = useState(0);
  const [asking, setAsking] = useState<AuditEntry | null>(null);
  const name = entityKey(entity);
  const list = useAuditPage({ entity: name, record: id }, page, PAGE);
  const rows = list.data?.data ?? [];
  const people = usePeople(subjectsOf(rows));
  const total = list.data?.total ?? null;
  const restore = useMutation({
    mutationFn: (entry: AuditEntry) => api.post("/api/platform/audits/{id}/restore", { params: { path: { id: entry.id } } }),
    onSuccess: async (record, entry) => {
      // The form shows the restored record at once (it resets to a new `one`), then lists refetch.
      qc.setQueryData(keys.one(entity.path, id), record as Row);
      toast.success(t("trust.history.restored", { when: when(entry.createdAt, lang) }));
      onRestored?.();
      await Promise.all([qc.invalidateQueries({ queryKey: ["audit"] }), qc.invalidateQueries({ queryKey: [...keys.all(entity.path), "list"] })]);
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : String(e)),
  });
  return (
    <section aria-labelledby={heading} className="grid gap-3" data-testid="record-history">
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={heading} className="font-semibold">
          {t("trust.history.title")}
        </h3>
        <AdminLink to={`/admin/audit?entity=${encodeURIComponent(name)}&record=${encodeURIComponent(id)}`} className="ml-auto text-sm underline underline-offset-4">
          {t("trust.history.openAudit")}
        </AdminLink>
      </div>
      {list.isSuccess && rows.length === 0 ? <p className="text-sm text-neutral-700">{t("trust.history.none")}</p> : null}
      {list.isError ? (
        <p role="alert" className="text-sm text-destructive">
          {list.error.message}
        </p>
      ) : null}
      <ol className="grid gap-3">
        {rows.map((entry, i) => (
          <li key={entry.id} className="grid gap-2 rounded-md border border-border p-3" data-testid="history-entry" data-action={entry.action}>
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <ActionBadge action={entry.action} />
              <time dateTime={entry.createdAt}>{when(entry.createdAt, lang)}</time>
              <span className="text-neutral-700">· {actorName(entry.actor, people, t)}</span>
              {page === 0 && i === 0 && RESTORABLE.has(entry.action) ? (
                <span className="ml-auto text-xs text-neutral-700">{t("trust.history.current")}</span>
              ) : RESTORABLE.has(entry.action) && entity.ops.update ? (
                <Button size="sm" variant="outline" className="ml-auto" disabled={restore.isPending} onClick={() => setAsking(entry)}>
                  {t("trust.history.restore")}
                </Button>
              ) : null}
            </div>
            <DiffView entry={entry} meta={meta} />
          </li>
        ))}
      </ol>
      {total !== null && total > PAGE ? (
        <Pager label={t("trust.history.title")} page={page} pages={Math.ceil(total / PAGE)} more={rows.length >= PAGE} onPage={setPage} />
      ) : null}
      <ConfirmDialog
        open={!!asking}
        onOpenChange={(o) => (o ? undefined : setAsking(null))}
        title={t("trust.history.restoreQuestion")}
        cancel={t("trust.publish.cancel")}
        confirm={t("trust.history.restore")}
        onConfirm={() => {
          const entry = asking;
          setAsking(null);
          if (entry) restore.mutate(entry);
        }}
      />
    </section>
  );
}

/**
 * The record's dialog body: for a saved record, the draft controls of a publishable entity and
 * the Record / History tabs (the form stays mounted behind the History tab, edits kept); a new
 * record has only its form.
 */
export function RecordTabs({ entity, meta, lang, id, children }: { entity: EntityMeta; meta: Meta; lang: string; id: string | null; children: ReactNode }) {
  const t = useTrustT();
  const [tab, setTab] = useState("record");
  // One tree before and after the first save, so the form is not mounted anew when it gets its id.
  return (
    <RecordDirtyProvider>
      <div className="grid gap-3">
        {id && publishable(entity) ? <DraftControls entity={entity} id={id} lang={lang} /> : null}
        <Tabs value={id ? tab : "record"} onValueChange={setTab}>
          {id ? (
            <TabsList aria-label={t("trust.history.record")} className="mb-4">
              <TabsTrigger value="record">{t("trust.history.record")}</TabsTrigger>
              <TabsTrigger value="history">{t("trust.history.tab")}</TabsTrigger>
            </TabsList>
          ) : null}
          <TabsContent value="record" forceMount className="data-[state=inactive]:hidden">
            {children}
          </TabsContent>
          {id ? (
            <TabsContent value="history">
              <HistoryPanel entity={entity} meta={meta} id={id} lang={lang} onRestored={() => setTab("record")} />
            </TabsContent>
          ) : null}
        </Tabs>
      </div>
    </RecordDirtyProvider>
  );
}
