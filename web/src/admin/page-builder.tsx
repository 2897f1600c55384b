import { closestCenter, DndContext, type DragEndEvent, PointerSensor, useSensor, useSensors } from "@dnd-kit/core";
import { arrayMove, SortableContext, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Monitor, Smartphone } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { useEditorT } from "@/admin/editor-i18n";
import { entityClient, inArray, type Row } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityName, findEntity, inPhrase, type Meta, useMeta, valueName } from "@/api/meta";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { cn } from "@/ui/cn";
import type { RecordPanelProps } from "./panels";
import { bulkUpdate } from "./chunks";
import { DragHandle } from "./drag-handle";
import { ordered, renumber } from "./order";
import { isTemplate } from "./preview-url";
import { RelationLists } from "./relation-list";
import { VariantSketch } from "./variant-sketch";
import { rowTitle } from "./schema";
import { EntityForm, formTitle } from "./form";
import { api } from "@/api/client";

const LINKS = "/api/host/pages-to-widgets";
const WIDGETS = "/api/host/widgets";
const EXTERNAL = "/api/host/widgets-to-external-widgets";

/** One block of a page: its link (the position), its host widget, and the module widgets it shows. */
export interface Block {
  link: Row;
  widget: Row | null;
  parts: { module: string; row: Row | null }[];
}

/** A variant a block can start from: a module's widget entity and one of its variants. */
export interface Choice {
  module: string;
  entity: EntityMeta;
  variant: string;
}

/** Every variant of every module's widget entity, for the gallery (the host's own widget aside). */
export function choices(meta: Meta): Choice[] {
  return meta.entities
    .filter((e) => e.name === "widget" && e.module !== "host" && e.ops.create)
    .flatMap((e) => (e.fields.find((f) => f.name === "variant")?.values ?? e.variants ?? []).map((variant) => ({ module: e.module, entity: e, variant })));
}

async function loadBlocks(pageId: string): Promise<Block[]> {
  const links = ordered((await entityClient({ path: LINKS }).list({ page: 0, size: 100, filters: { pageId } })).data);
  const ids = links.map((l) => String(l.widgetId));
  if (!ids.length) return [];
  const [widgets, externals] = await Promise.all([
    entityClient({ path: WIDGETS }).list({ page: 0, size: 100, conditions: inArray("id", ids) }),
    entityClient({ path: EXTERNAL }).list({ page: 0, size: 100, conditions: inArray("widgetId", ids) }),
  ]);
  const byModule = new Map<string, string[]>();
  for (const x of externals.data) byModule.set(String(x.externalModule), [...(byModule.get(String(x.externalModule)) ?? []), String(x.externalWidgetId)]);
  const parts = new Map<string, Row>();
  await Promise.all(
    [...byModule].map(async ([module, wanted]) => {
      const got = await entityClient({ path: `/api/${module}/widgets` }).list({ page: 0, size: 100, conditions: inArray("id", wanted) });
      for (const r of got.data) parts.set(`${module}/${r.id}`, r);
    }),
  );
  const widgetById = new Map(widgets.data.map((w) => [w.id, w]));
  return links.map((link) => ({
    link,
    widget: widgetById.get(String(link.widgetId)) ?? null,
    parts: externals.data.filter((x) => x.widgetId === link.widgetId).map((x) => ({ module: String(x.externalModule), row: parts.get(`${String(x.externalModule)}/${String(x.externalWidgetId)}`) ?? null })),
  }));
}

/** What a block is called: its first part's title (what the page shows), else its own. */
export function blockTitle(block: Block, meta: Meta, lang: string): string | null {
  for (const p of block.parts) {
    const e = findEntity(meta, `${p.module}.widget`);
    const title = p.row && e ? rowTitle(e, p.row, lang) : "";
    if (title && title !== p.row?.id) return title;
  }
  const host = findEntity(meta, "host.widget");
  return block.widget && host ? rowTitle(host, block.widget, lang) : null;
}

function SortableBlock({ block, meta, lang, onEdit, onRemove, onMove }: { block: Block; meta: Meta; lang: string; onEdit: (module: string, id: string) => void; onRemove: () => void; onMove: (by: -1 | 1) => void }) {
  const t = useEditorT();
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({ id: block.link.id });
  const title = blockTitle(block, meta, lang) ?? t("ed.builder.missing");
  return (
    <li ref={setNodeRef} style={{ transform: CSS.Transform.toString(transform), transition }} className={cn("flex flex-wrap items-start gap-2 rounded-lg border border-border bg-white p-2", isDragging && "z-10 shadow-lg")} data-testid="builder-block" data-block={block.link.id}>
      <DragHandle className="mt-0.5" label={t("ed.builder.move", { name: title })} attributes={attributes} listeners={listeners} onMove={onMove} />
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium">{title}</p>
        <ul className="mt-1 flex flex-wrap gap-1">
          {block.parts.map((p, i) => {
            const e = findEntity(meta, `${p.module}.widget`);
            const variant = e?.fields.find((f) => f.name === "variant");
            const what = p.row && variant ? valueName(variant, String(p.row.variant), lang) : e ? entityName(e, lang) : p.module;
            return (
              <li key={i}>
                {p.row ? (
                  <button type="button" className="rounded-full bg-muted px-2 py-0.5 text-xs hover:underline" onClick={() => onEdit(p.module, p.row!.id)}>
                    {what}
                  </button>
                ) : (
                  <span className="rounded-full bg-muted px-2 py-0.5 text-xs">{what}</span>
                )}
              </li>
            );
          })}
        </ul>
      </div>
      <div className="flex w-full justify-end gap-1">
        {block.widget ? (
          <Button type="button" size="sm" variant="outline" onClick={() => onEdit("host", block.widget!.id)}>
            {t("admin.edit")}
          </Button>
        ) : null}
        <Button type="button" size="sm" variant="ghost" onClick={onRemove} aria-label={t("ed.builder.remove", { name: title })}>
          {t("ed.builder.removeShort")}
        </Button>
      </div>
    </li>
  );
}

function Gallery({ meta, lang, onPick }: { meta: Meta; lang: string; onPick: (c: Choice) => void }) {
  const all = choices(meta);
  // The modules with the most kinds of block first (the site builder's, then the blog's…): one
  // with only a standard block is rarely what a page needs.
  const count = (m: string) => all.filter((c) => c.module === m).length;
  const modules = [...new Set(all.map((c) => c.module))].sort((a, b) => count(b) - count(a));
  return (
    <div className="grid gap-4" data-testid="builder-gallery">
      {modules.map((m) => {
        const list = all.filter((c) => c.module === m);
        const e = list[0]!.entity;
        return (
          <section key={m}>
            <h3 className="text-sm font-semibold">{entityName(e, lang, true)}</h3>
            <ul className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-3">
              {list.map((c) => {
                const variant = c.entity.fields.find((f) => f.name === "variant");
                const name = variant ? valueName(variant, c.variant, lang) : c.variant;
                return (
                  <li key={c.variant}>
                    <button type="button" className="flex h-full w-full flex-col items-start gap-1 rounded-lg border border-border p-3 text-left text-sm hover:bg-muted focus-visible:ring-2" onClick={() => onPick(c)} data-variant={`${c.module}.${c.variant}`}>
                      <VariantSketch module={c.module} variant={c.variant} />
                      <span className="font-medium">{name}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

/** The page builder: the page's blocks in order (drag to reorder, keyboard too), a gallery to add
 * one, each block's parts a click from their form, and the page beside, re-rendered after each
 * change, at desktop or phone width. */
function Builder({ page, meta, lang }: { page: Row; meta: Meta; lang: string }) {
  const t = useEditorT();
  const qc = useQueryClient();
  const key = ["builder", page.id] as const;
  const blocks = useQuery({ queryKey: key, queryFn: () => loadBlocks(page.id) });
  const [order, setOrder] = useState<Block[] | null>(null);
  const shown = order ?? blocks.data ?? [];
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<{ entity: EntityMeta; id: string } | null>(null);
  const [width, setWidth] = useState<"desktop" | "phone">("desktop");
  const [version, setVersion] = useState(0);
  // The open form's unsaved edits, kept by the server under a key the preview reads.
  const [draft, setDraft] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const editingId = editing?.id;
  const onDraft = useCallback(
    (fields: Record<string, unknown>) => {
      clearTimeout(timer.current);
      if (!editingId) return;
      timer.current = setTimeout(() => {
        void api
          .post("/api/host/pages/drafts", { body: { patches: [{ id: editingId, fields }] } })
          .then((r) => setDraft(r.key))
          .catch(() => undefined);
      }, 400);
    },
    [editingId],
  );
  const closeEditing = () => {
    clearTimeout(timer.current);
    setEditing(null);
    setDraft(null);
    void changed();
  };
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }));
  const [said, setSaid] = useState("");
  const [focus, setFocus] = useState<string | null>(null);
  useEffect(() => {
    if (!focus) return;
    document.querySelector<HTMLElement>(`[data-block="${focus}"] [data-handle]`)?.focus();
  });
  const changed = async () => {
    await qc.invalidateQueries({ queryKey: key });
    setOrder(null);
    setVersion((v) => v + 1);
  };
  const fail = (e: unknown) => toast.error(e instanceof ApiError ? e.first : t("admin.failed"));

  async function onDragEnd(e: DragEndEvent) {
    if (!e.over || e.active.id === e.over.id) return;
    await move(
      shown.findIndex((b) => b.link.id === e.active.id),
      shown.findIndex((b) => b.link.id === e.over!.id),
    );
  }

  async function move(from: number, to: number) {
    if (from < 0 || to < 0 || to >= shown.length || from === to) return;
    const next = arrayMove(shown, from, to);
    const moved = next[to]!;
    setOrder(next);
    setFocus(moved.link.id);
    setSaid(t("ed.builder.moved", { name: blockTitle(moved, meta, lang) ?? t("ed.builder.missing"), position: to + 1, count: next.length }));
    try {
      // One request, one transaction: all the new positions or none.
      await bulkUpdate({ path: LINKS })(renumber(next.map((b) => b.link)).map(({ id, orderIndex }) => ({ id, data: { orderIndex } })));
      await changed();
    } catch (err) {
      setOrder(null);
      fail(err);
    }
  }

  async function add(c: Choice) {
    setAdding(false);
    const variant = c.entity.fields.find((f) => f.name === "variant");
    const name = variant ? valueName(variant, c.variant, lang) : c.variant;
    try {
      const part = await entityClient(c.entity).create({ variant: c.variant, title: { [lang]: name } });
      // A new block starts as a draft: the preview shows it, visitors see it once the page is
      // published (publishing a page takes its draft blocks along).
      const host = await entityClient({ path: WIDGETS }).create({ title: { [lang]: name }, status: "draft" });
      await entityClient({ path: EXTERNAL }).create({ widgetId: host.id, externalModule: c.module, externalWidgetId: part.id });
      await entityClient({ path: LINKS }).create({ pageId: page.id, widgetId: host.id, orderIndex: shown.length });
      await changed();
      toast.success(t("ed.builder.added", { name }));
      setEditing({ entity: c.entity, id: part.id });
    } catch (err) {
      fail(err);
    }
  }

  async function remove(b: Block) {
    try {
      await entityClient({ path: LINKS }).remove(b.link.id);
      await changed();
    } catch (err) {
      fail(err);
    }
  }

  const url = typeof page.url === "string" ? page.url : "/";
  const preview = isTemplate(url) ? null : `/${lang}${url === "/" ? "" : url}?preview=1&frame=1&v=${version}${draft ? `&draft=${draft}` : ""}`;
  return (
    <div className="grid h-full min-h-0 grid-cols-1 gap-4 lg:grid-cols-[minmax(20rem,26rem)_1fr]">
      {editing ? (
        <section aria-labelledby="builder-editing" className="flex min-h-0 min-w-0 flex-col gap-3 overflow-y-auto pr-1" data-testid="builder-editing">
          <div className="flex items-center justify-between gap-2">
            <h3 id="builder-editing" className="font-semibold">
              {formTitle(t, editing.entity, lang, true)}
            </h3>
            <Button type="button" size="sm" variant="outline" onClick={closeEditing} data-testid="builder-back">
              {t("ed.builder.back")}
            </Button>
          </div>
          <p className="text-xs text-neutral-700">{t("ed.builder.live")}</p>
          <EntityForm key={`${editing.entity.module}.${editing.id}`} entity={editing.entity} meta={meta} lang={lang} id={editing.id} onDraft={onDraft} onSaved={() => {
            clearTimeout(timer.current);
            setDraft(null);
            void changed();
          }} />
          {/* What the block links (its buttons, features, sliders…), edited here too; the page beside follows. */}
          <RelationLists entity={editing.entity} meta={meta} lang={lang} id={editing.id} onChanged={() => void changed()} />
        </section>
      ) : (
        <section aria-labelledby="builder-blocks" className="flex min-h-0 min-w-0 flex-col gap-3 overflow-y-auto pr-1">
          <div className="flex items-center justify-between gap-2">
            <h3 id="builder-blocks" className="font-semibold">
              {t("ed.builder.blocks")}
            </h3>
            <Button type="button" size="sm" onClick={() => setAdding(true)} data-testid="builder-add">
              {t("ed.builder.add")}
            </Button>
          </div>
          <p className="text-xs text-neutral-700">{t("ed.builder.help")}</p>
          {blocks.isPending ? <p className="text-sm">{t("admin.loading")}</p> : null}
          {blocks.isSuccess && !shown.length ? <p className="text-sm text-neutral-700">{t("ed.builder.empty")}</p> : null}
          <p className="sr-only" aria-live="polite" data-testid="builder-said">
            {said}
          </p>
          <DndContext
            sensors={sensors}
            collisionDetection={closestCenter}
            onDragEnd={(e) => void onDragEnd(e)}
            accessibility={{
              screenReaderInstructions: { draggable: t("ed.builder.dragHelp") },
              // Said in our own live region, in the admin's words (the kit's say ids).
              announcements: { onDragStart: () => undefined, onDragMove: () => undefined, onDragOver: () => undefined, onDragEnd: () => undefined, onDragCancel: () => undefined },
            }}
          >
            <SortableContext items={shown.map((b) => b.link.id)} strategy={verticalListSortingStrategy}>
              <ol className="grid gap-2" aria-label={t("ed.builder.blocks")}>
                {shown.map((b) => (
                  <SortableBlock
                    key={b.link.id}
                    block={b}
                    meta={meta}
                    lang={lang}
                    onEdit={(module, id) => {
                      const e = findEntity(meta, `${module}.widget`);
                      if (e) setEditing({ entity: e, id });
                    }}
                    onRemove={() => void remove(b)}
                    onMove={(by) => void move(shown.indexOf(b), shown.indexOf(b) + by)}
                  />
                ))}
              </ol>
            </SortableContext>
          </DndContext>
        </section>
      )}
      <section aria-labelledby="builder-preview" className="flex min-h-[24rem] min-w-0 flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <h3 id="builder-preview" className="font-semibold">
            {t("ed.builder.preview")}
          </h3>
          <div className="ml-auto flex gap-1">
            <Button type="button" size="sm" variant={width === "desktop" ? "default" : "outline"} aria-pressed={width === "desktop"} onClick={() => setWidth("desktop")}>
              <Monitor aria-hidden className="mr-1 h-4 w-4" />
              {t("ed.builder.desktop")}
            </Button>
            <Button type="button" size="sm" variant={width === "phone" ? "default" : "outline"} aria-pressed={width === "phone"} onClick={() => setWidth("phone")}>
              <Smartphone aria-hidden className="mr-1 h-4 w-4" />
              {t("ed.builder.phone")}
            </Button>
          </div>
        </div>
        {preview ? (
          <div className="min-h-0 flex-1 overflow-hidden rounded-lg border border-border bg-neutral-100">
            <iframe sandbox="allow-same-origin" key={`${version}-${width}-${draft ?? ""}`} title={t("ed.builder.previewOf", { url })} src={preview} className={cn("mx-auto h-full bg-white", width === "phone" ? "w-[390px]" : "w-full")} data-testid="builder-frame" />
          </div>
        ) : (
          <p className="text-sm text-neutral-700">{t("ed.builder.noPreview")}</p>
        )}
      </section>
      <Dialog open={adding} onOpenChange={setAdding}>
        {adding ? (
          <DialogContent title={t("ed.builder.gallery")} className="w-[min(48rem,calc(100vw-2rem))]">
            <Gallery meta={meta} lang={lang} onPick={(c) => void add(c)} />
          </DialogContent>
        ) : null}
      </Dialog>

    </div>
  );
}

/** Under a page's form: its blocks at a glance and the page builder a click away. */
export default function PageBuilderPanel({ id, lang }: RecordPanelProps) {
  const t = useEditorT();
  const meta = useMeta();
  const page = useQuery({ queryKey: ["entity", "/api/host/pages", "one", id], queryFn: () => entityClient({ path: "/api/host/pages" }).one(id) });
  const [open, setOpen] = useState(false);
  if (!meta.data || !page.data) return null;
  const pages = findEntity(meta.data, "host.page");
  return (
    <section className="rounded-lg border border-border p-3" aria-labelledby={`builder-${id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={`builder-${id}`} className="font-semibold">
          {t("ed.builder.title")}
        </h3>
        <Button type="button" size="sm" className="ml-auto" onClick={() => setOpen(true)} data-testid="builder-open">
          {t("ed.builder.open")}
        </Button>
      </div>
      <p className="mt-1 text-sm text-neutral-700">{t("ed.builder.intro")}</p>
      <Dialog open={open} onOpenChange={setOpen}>
        {open ? (
          <DialogContent title={t("ed.builder.titleOf", { name: typeof page.data.title === "string" && page.data.title.trim() ? page.data.title : pages ? inPhrase(rowTitle(pages, page.data, lang)) : "" })} className="h-[calc(100vh-2rem)] max-h-[calc(100vh-2rem)] w-[calc(100vw-2rem)] max-w-none">
            <Builder page={page.data} meta={meta.data} lang={lang} />
          </DialogContent>
        ) : null}
      </Dialog>
    </section>
  );
}
