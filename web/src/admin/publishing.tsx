// Drafts in the admin: a record's status badge (tables and dialogs), and in a publishable record's
// dialog Publish / Back to draft, Schedule (a time → `scheduled` + `publishAt`) and Preview (the
// public page with `?preview=1` in a new tab, found from the page templates; disabled, saying why,
// when no page shows the record).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { api } from "@/api/client";
import { entityClient, keys, type Row } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityKey } from "@/api/meta";
import { cn } from "@/ui/cn";
import { Button, buttonVariants } from "@/ui/button";
import { Badge } from "@/ui/card";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Input, Label } from "@/ui/input";
import { isoToLocal, localToIso } from "./audit-diff";
import { when } from "./list";
import { type PreviewTarget, previewTarget, slugToken } from "./preview-url";
import { useTrustT } from "./trust-i18n";

const TONE: Record<string, string> = {
  draft: "border-amber-700 bg-amber-50 text-amber-900",
  scheduled: "border-blue-700 bg-blue-50 text-blue-900",
  published: "border-green-700 bg-green-50 text-green-900",
};

/** A record's status as a coloured badge (a scheduled one says when). */
export function StatusBadge({ status, publishAt, lang }: { status: unknown; publishAt?: unknown; lang: string }) {
  const t = useTrustT();
  if (typeof status !== "string" || !status) return null;
  const label = t(`trust.status.${status}`, { defaultValue: status });
  const at = status === "scheduled" ? when(publishAt, lang) : "";
  return (
    <Badge className={cn(TONE[status])} data-testid="status-badge" data-status={status} title={at ? t("trust.status.scheduledFor", { when: at }) : undefined}>
      {label}
      {at ? <span className="ml-1 font-normal">· {at}</span> : null}
    </Badge>
  );
}

// Whether the record's form has unsaved edits: the form reports it, the controls above it read it
// (publishing reloads the form from the server's answer, which would drop those edits).
const ReportDirty = createContext<((dirty: boolean) => void) | null>(null);
const Dirty = createContext(false);

export function RecordDirtyProvider({ children }: { children: ReactNode }) {
  const [dirty, setDirty] = useState(false);
  return (
    <ReportDirty value={setDirty}>
      <Dirty value={dirty}>{children}</Dirty>
    </ReportDirty>
  );
}

/** Called by the record's form with its dirty state (nothing happens outside a record dialog). */
export function useReportDirty(dirty: boolean): void {
  const report = useContext(ReportDirty);
  useEffect(() => report?.(dirty), [report, dirty]);
  useEffect(() => () => report?.(false), [report]);
}

/** The page URLs that may show a record of `entity`: the templates naming its slug, or, for a
 * widget, the pages it is placed on. */
function usePreviewPages(entity: EntityMeta, id: string) {
  const key = entityKey(entity);
  return useQuery({
    queryKey: ["preview-pages", key, key === "host.widget" ? id : null],
    enabled: key !== "host.page",
    staleTime: 60_000,
    queryFn: async (): Promise<string[]> => {
      if (key === "host.widget") {
        const links = await api.get("/api/host/pages-to-widgets", {
          params: { query: { filters: JSON.stringify({ and: [{ column: "widgetId", method: "eq", value: id }] }), limit: 20 } },
        });
        const ids = [...new Set(links.map((l) => l.pageId))];
        if (!ids.length) return [];
        const pages = await api.get("/api/host/pages", { params: { query: { filters: JSON.stringify({ and: [{ column: "id", method: "inArray", value: ids }] }), limit: ids.length } } });
        return pages.map((p) => p.url);
      }
      const pages = await api.get("/api/host/pages", {
        params: { query: { filters: JSON.stringify({ and: [{ column: "url", method: "like", value: `%${slugToken(entity)}%` }] }), limit: 20 } },
      });
      return pages.map((p) => p.url);
    },
  });
}

function reasonText(target: Exclude<PreviewTarget, { href: string }>, t: ReturnType<typeof useTrustT>): string {
  switch (target.reason) {
    case "noPage":
      return t("trust.publish.noPage", { token: target.token });
    case "templatePage":
      return t("trust.publish.templatePage");
    case "widgetNoPage":
      return t("trust.publish.widgetNoPage");
  }
}

function PreviewButton({ entity, record, lang }: { entity: EntityMeta; record: Row; lang: string }) {
  const t = useTrustT();
  const reasonId = useId();
  const pages = usePreviewPages(entity, record.id);
  const waiting = entityKey(entity) !== "host.page" && pages.isPending;
  const target = waiting ? null : previewTarget(entity, record, lang, pages.data ?? []);
  if (target && "href" in target) {
    return (
      <a href={target.href} target="_blank" rel="noopener" className={buttonVariants({ variant: "outline", size: "sm" })} title={t("trust.publish.previewHint")} data-testid="preview-link">
        {t("trust.publish.preview")}
      </a>
    );
  }
  const reason = target ? reasonText(target, t) : t("trust.publish.looking");
  // A disabled button shows no tooltip (no pointer events): the wrapper carries it, and the
  // reason is the button's description for screen readers.
  return (
    <span title={reason} className="inline-flex" data-testid="preview-disabled">
      <Button size="sm" variant="outline" disabled aria-describedby={reasonId}>
        {t("trust.publish.preview")}
      </Button>
      <span id={reasonId} className="sr-only">
        {reason}
      </span>
    </span>
  );
}

function ScheduleDialog({ open, onOpenChange, current, onSchedule }: { open: boolean; onOpenChange: (o: boolean) => void; current: unknown; onSchedule: (iso: string) => Promise<string | null> }) {
  const t = useTrustT();
  const id = useId();
  const [value, setValue] = useState(() => isoToLocal(typeof current === "string" ? current : null));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(ev: React.FormEvent) {
    ev.preventDefault();
    const iso = localToIso(value);
    if (!iso || new Date(iso).getTime() <= Date.now()) {
      setError(t("trust.publish.past"));
      return;
    }
    setBusy(true);
    const problem = await onSchedule(iso);
    setBusy(false);
    if (problem) setError(problem);
    else onOpenChange(false);
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={t("trust.publish.scheduleTitle")} description={t("trust.publish.scheduleHelp")} className="max-w-md">
        <form className="grid gap-4" noValidate onSubmit={(e) => void submit(e)}>
          <div className="grid gap-1.5">
            <Label htmlFor={id}>{t("trust.publish.at")}</Label>
            <Input
              id={id}
              type="datetime-local"
              value={value}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => {
                setValue(e.target.value);
                setError(null);
              }}
            />
            {error ? (
              <p id={`${id}-error`} role="alert" className="text-sm text-destructive">
                {error}
              </p>
            ) : null}
          </div>
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => onOpenChange(false)}>
              {t("trust.publish.cancel")}
            </Button>
            <Button type="submit" disabled={busy}>
              {t("trust.publish.scheduleConfirm")}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Status, Publish (or Back to draft), Schedule and Preview of a saved publishable record. */
export function DraftControls({ entity, id, lang }: { entity: EntityMeta; id: string; lang: string }) {
  const t = useTrustT();
  const qc = useQueryClient();
  const dirty = useContext(Dirty);
  const client = entityClient(entity);
  const record = useQuery({ queryKey: keys.one(entity.path, id), queryFn: () => client.one(id) });
  const [scheduling, setScheduling] = useState(false);
  // A page with unpublished widgets: the server's words, and the offer to publish (or schedule,
  // `at`) them too.
  const [widgets, setWidgets] = useState<{ names: string; at?: string } | null>(null);
  const isPage = entityKey(entity) === "host.page";

  async function saved(row: Row) {
    qc.setQueryData(keys.one(entity.path, id), row);
    await Promise.all([qc.invalidateQueries({ queryKey: [...keys.all(entity.path), "list"] }), qc.invalidateQueries({ queryKey: ["audit"] })]);
  }

  /** A page goes live (now, or at `at`) through its publish route, which takes its widgets along. */
  const publishPage = async (withWidgets: boolean, at?: string): Promise<Row> => {
    const r = await api.post("/api/host/pages/{id}/publish", { params: { path: { id } }, body: { withWidgets, ...(at ? { publishAt: at } : {}) } });
    return r.page as unknown as Row;
  };
  /** The server lists a page's unpublished widgets by name in a 409's `fields.widgets`. */
  const unpublished = (e: unknown): string | null => (isPage && e instanceof ApiError && e.status === 409 ? e.fields.widgets?.join(", ") || e.message : null);

  const change = useMutation({
    mutationFn: async (to: { status: "published" | "draft"; withWidgets?: boolean }): Promise<Row> => {
      if (isPage && to.status === "published") return publishPage(!!to.withWidgets);
      return client.update(id, { status: to.status });
    },
    onSuccess: async (row, to) => {
      setWidgets(null);
      await saved(row);
      toast.success(to.status === "published" ? t("trust.publish.published") : t("trust.publish.drafted"));
    },
    onError: (e) => {
      const names = unpublished(e);
      if (names) setWidgets({ names });
      else toast.error(e instanceof ApiError ? e.first : String(e));
    },
  });

  async function schedule(iso: string, withWidgets = false): Promise<string | null> {
    try {
      const row = isPage ? await publishPage(withWidgets, iso) : await client.update(id, { status: "scheduled", publishAt: iso });
      setWidgets(null);
      await saved(row);
      toast.success(t("trust.publish.scheduled", { when: when(row.publishAt, lang) }));
      return null;
    } catch (e) {
      const names = unpublished(e);
      if (names) {
        // The dialog closes; the page's controls offer to schedule its widgets with it.
        setWidgets({ names, at: iso });
        return null;
      }
      if (e instanceof ApiError) return e.fields.publishAt?.[0] ?? e.first;
      return String(e);
    }
  }

  const row = record.data;
  if (!row) return null;
  const status = typeof row.status === "string" ? row.status : "";
  const busy = change.isPending;
  const hint = dirty ? t("trust.publish.saveFirst") : undefined;
  return (
    <div className="grid gap-2 rounded-md border border-border bg-neutral-50 p-2" data-testid="draft-controls">
      <div className="flex flex-wrap items-center gap-2">
        <span className="sr-only">{t("trust.status.label")}:</span>
        <StatusBadge status={status} publishAt={row.publishAt} lang={lang} />
        <div className="ml-auto flex flex-wrap items-center gap-2">
          {hint ? <span className="text-xs text-neutral-700">{hint}</span> : null}
          {status === "published" ? (
            <Button size="sm" variant="outline" disabled={busy || dirty} onClick={() => change.mutate({ status: "draft" })}>
              {t("trust.publish.unpublish")}
            </Button>
          ) : (
            <Button size="sm" disabled={busy || dirty} onClick={() => change.mutate({ status: "published" })}>
              {t("trust.publish.publish")}
            </Button>
          )}
          <Button size="sm" variant="outline" disabled={busy || dirty} onClick={() => setScheduling(true)}>
            {t("trust.publish.schedule")}
          </Button>
          <PreviewButton entity={entity} record={row} lang={lang} />
        </div>
      </div>
      {widgets ? (
        <div role="alert" className="flex flex-wrap items-center gap-2 text-sm">
          <span className="flex-1">{t("trust.publish.widgetsDraft", { names: widgets.names })}</span>
          {widgets.at ? (
            <Button size="sm" disabled={busy} onClick={() => void schedule(widgets.at!, true).then((m) => (m ? toast.error(m) : undefined))}>
              {t("trust.publish.scheduleWithWidgets", { when: when(widgets.at, lang) })}
            </Button>
          ) : (
            <Button size="sm" disabled={busy} onClick={() => change.mutate({ status: "published", withWidgets: true })}>
              {t("trust.publish.withWidgets")}
            </Button>
          )}
        </div>
      ) : null}
      {scheduling ? <ScheduleDialog open onOpenChange={setScheduling} current={row.publishAt} onSchedule={schedule} /> : null}
    </div>
  );
}
