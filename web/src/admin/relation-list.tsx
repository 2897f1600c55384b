import { closestCenter, DndContext, type DragEndEvent, PointerSensor, useSensor, useSensors } from "@dnd-kit/core";
import { arrayMove, SortableContext, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { FileText, Link2, Settings2, X } from "lucide-react";
import { Popover } from "radix-ui";
import { lazy, type ReactNode, Suspense, useDeferredValue, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import { entityClient, keys, type ListParams, type Row, useEntityList } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityName, type FieldMeta, findEntity, inLanguage, inPhrase, type Meta } from "@/api/meta";
import { useTranslation } from "@/i18n";
import { fileUrl } from "@/site/content";
import { Button } from "@/ui/button";
import { cn } from "@/ui/cn";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Input } from "@/ui/input";
import { fileKind, isSizable, sizedUrl } from "@/ui/media";
import { DragHandle } from "./drag-handle";
import { useEditorT } from "./editor-i18n";
import { EntityForm, formTitle } from "./form";
import { bulkUpdate } from "./chunks";
import { ordered, renumber } from "./order";
import { AdminLink, recordHref, useReferenceTitles } from "./records";
import { rowDetail, rowTitle } from "./schema";

// A relation edited where it belongs: inside a record, the records linked to it as an ordered list
// (drag or arrows to reorder, which is the links' orderIndex), with their picture and title, a
// searchable picker of what to link, create-and-link in place and unlink. The link rows stay what
// they are in the content model; this is how an editor sees them.

// The media library loads with its picker, not with every form.
const MediaPicker = lazy(() => import("./media-library").then((m) => ({ default: m.MediaLibrary })));

const FILES = "file-storage.file";
/** Links shown as a list; a record with more gets the paged table instead (`overflow`). */
export const RELATION_LIMIT = 100;

/** A relation seen from one of its two ends: the field holding this record and the other end. */
export interface RelationSide {
  relation: EntityMeta;
  /** The relation's field that holds the record being edited. */
  fixed: string;
  /** Its field that holds the linked record. */
  other: FieldMeta;
  target: EntityMeta;
  /** Whether this record is the relation's first end (its words are written from that end). */
  left: boolean;
}

/** The relation `relation` seen from the record its field `fixed` holds, or null when it is not a two-ended relation. */
export function relationSide(meta: Meta, relation: EntityMeta, fixed: string): RelationSide | null {
  if (relation.kind !== "relation") return null;
  const refs = relation.fields.filter((f) => f.kind === "reference" && f.target);
  if (refs.length !== 2 || !refs.some((f) => f.name === fixed)) return null;
  const other = refs.find((f) => f.name !== fixed);
  const target = other?.target ? findEntity(meta, other.target) : undefined;
  if (!other || !target) return null;
  return { relation, fixed, other, target, left: refs[0]!.name === fixed };
}

/** What the list is called: the relation's own words from its first end ("Article's files"), else the linked records' name ("Categories"). */
export function relationHeading(side: RelationSide, lang: string): string {
  return side.left && side.relation.labelMany ? entityName(side.relation, lang, true) : entityName(side.target, lang, true);
}

/** The picture of a linked record: a stored file itself, else the record's first file field, when it is an image. */
export function thumbnailOf(target: EntityMeta, row: Row | undefined): { src: string; kind: "image" | "file" } | null {
  if (!row) return null;
  let src = "";
  let mime: string | null = null;
  if (`${target.module}.${target.name}` === FILES) {
    src = fileUrl(row);
    mime = typeof row.mimeType === "string" ? row.mimeType : null;
  } else {
    for (const f of target.fields) {
      const v = row[f.name];
      if (f.format === "file" && typeof v === "string" && v) {
        src = v;
        break;
      }
    }
  }
  if (!src) return null;
  if (fileKind(src, mime) !== "image") return { src, kind: "file" };
  return { src: isSizable(src) ? sizedUrl(src, 128) : src, kind: "image" };
}

/** Whether records of `target` can have a picture (a stored file, or a file field). */
export function hasPictures(target: EntityMeta): boolean {
  return `${target.module}.${target.name}` === FILES || target.fields.some((f) => f.format === "file");
}

function Thumbnail({ target, row }: { target: EntityMeta; row: Row | undefined }) {
  // Records without pictures show none (no placeholder beside every title).
  if (!hasPictures(target)) return null;
  const thumb = thumbnailOf(target, row);
  const box = "flex h-10 w-10 shrink-0 items-center justify-center overflow-hidden rounded border border-border bg-muted text-neutral-600";
  // Decorative: the title beside says what it is.
  if (thumb?.kind === "image") return <img src={thumb.src} alt="" width={40} height={40} loading="lazy" className={cn(box, "object-cover")} data-testid="relation-thumb" />;
  const Icon = thumb ? FileText : Link2;
  return (
    <span className={box} aria-hidden>
      <Icon className="h-4 w-4" />
    </span>
  );
}

interface ItemProps {
  link: Row;
  side: RelationSide;
  target: Row | undefined;
  lang: string;
  onMove: (by: -1 | 1) => void;
  onUnlink: (() => void) | null;
  onSettings: (() => void) | null;
  draggable: boolean;
}

function LinkedItem({ link, side, target, lang, onMove, onUnlink, onSettings, draggable }: ItemProps) {
  const t = useEditorT();
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({ id: link.id, disabled: !draggable });
  const targetId = typeof link[side.other.name] === "string" ? (link[side.other.name] as string) : "";
  const title = target ? rowTitle(side.target, target, lang) : t("ed.rel.missing");
  const detail = target ? rowDetail(side.target, target, lang) : "";
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={cn("flex items-center gap-2 rounded-md border border-border bg-white p-2", isDragging && "z-10 shadow-lg")}
      data-testid="relation-item"
      data-link={link.id}
    >
      {draggable ? (
        <DragHandle label={t("ed.rel.move", { name: title })} attributes={attributes} listeners={listeners} onMove={onMove} />
      ) : null}
      <Thumbnail target={side.target} row={target} />
      <div className="min-w-0 flex-1">
        {targetId ? (
          <AdminLink to={recordHref(side.target, targetId)} className="block truncate text-sm font-medium underline-offset-4 hover:underline" data-testid="relation-title">
            {title}
          </AdminLink>
        ) : (
          <span className="block truncate text-sm">{title}</span>
        )}
        {detail ? <span className="block truncate text-xs text-neutral-700">{detail}</span> : null}
      </div>
      {onSettings ? (
        <Button type="button" size="sm" variant="ghost" onClick={onSettings} aria-label={t("ed.rel.settings", { name: title })} title={t("ed.rel.settings", { name: title })}>
          <Settings2 aria-hidden className="h-4 w-4" />
        </Button>
      ) : null}
      {onUnlink ? (
        <Button type="button" size="sm" variant="ghost" onClick={onUnlink} aria-label={t("ed.rel.unlink", { name: title })} title={t("ed.rel.unlink", { name: title })}>
          <X aria-hidden className="h-4 w-4" />
          <span className="sr-only sm:not-sr-only sm:ml-1">{t("ed.rel.unlinkShort")}</span>
        </Button>
      ) : null}
    </li>
  );
}

/** A searchable list of the target's records; a chosen one is linked (those already linked are marked). */
function Picker({ side, lang, linked, onPick }: { side: RelationSide; lang: string; linked: ReadonlySet<string>; onPick: (row: Row) => void }) {
  const t = useEditorT();
  const { t: at } = useTranslation();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search);
  const params: ListParams = { search: deferred, page: 0, size: 20 };
  const client = entityClient(side.target);
  const list = useQuery({ queryKey: keys.list(side.target.path, params), queryFn: ({ signal }) => client.list(params, signal), enabled: open });
  const what = inPhrase(entityName(side.target, lang));
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger asChild>
        <Button type="button" size="sm" variant="outline" aria-label={t("ed.rel.pickNamed", { what })} data-testid="relation-pick">
          {t("ed.rel.pick")}
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content align="start" sideOffset={4} aria-label={t("ed.rel.pickNamed", { what })} className="z-[60] w-[min(24rem,calc(100vw-2rem))] rounded-md border border-border bg-white p-2 shadow-lg">
          <Input type="search" placeholder={at("admin.search")} aria-label={t("ed.rel.find", { what: inPhrase(entityName(side.target, lang, true)) })} value={search} onChange={(e) => setSearch(e.target.value)} />
          <ul aria-label={entityName(side.target, lang, true)} className="mt-2 max-h-72 overflow-y-auto">
            {(list.data?.data ?? []).map((r) => {
              const has = linked.has(r.id);
              const title = rowTitle(side.target, r, lang);
              const detail = rowDetail(side.target, r, lang);
              return (
                <li key={r.id}>
                  <button
                    type="button"
                    disabled={has}
                    className="flex w-full items-center gap-2 rounded px-2 py-1.5 text-left text-sm hover:bg-muted disabled:cursor-default disabled:opacity-70"
                    onClick={() => {
                      setOpen(false);
                      setSearch("");
                      onPick(r);
                    }}
                  >
                    <Thumbnail target={side.target} row={r} />
                    <span className="min-w-0 flex-1">
                      <span className="block truncate">{title}</span>
                      {detail ? <span className="block truncate text-xs text-neutral-700">{detail}</span> : null}
                    </span>
                    {has ? <span className="text-xs text-neutral-700">{t("ed.rel.linked")}</span> : null}
                  </button>
                </li>
              );
            })}
            {list.data && list.data.data.length === 0 ? <li className="px-2 py-1.5 text-sm text-muted-foreground">{at("admin.noFound")}</li> : null}
            {list.isLoading ? <li className="px-2 py-1.5 text-sm text-muted-foreground">{at("admin.loading")}</li> : null}
          </ul>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

interface ListProps {
  side: RelationSide;
  meta: Meta;
  lang: string;
  /** The record being edited. */
  id: string;
  /** What to show instead when the record has more links than a list holds (the paged table). */
  overflow: ReactNode;
  /** Opens a link's own form (its position, style class): the record dialog owns that dialog. */
  onSettings?: (linkId: string) => void;
  /** Hears each change made (a link made, moved or removed): the page builder re-renders its preview. */
  onChanged?: () => void;
}

/** The records linked to record `id` through `side.relation`, in their order, editable in place. */
export function RelationList({ side, meta, lang, id, overflow, onSettings, onChanged }: ListProps) {
  const t = useEditorT();
  const { t: at } = useTranslation();
  const qc = useQueryClient();
  const { relation, fixed, other, target } = side;
  const params: ListParams = { page: 0, size: RELATION_LIMIT, filters: { [fixed]: id } };
  const list = useEntityList(relation, params);
  const rows = useMemo(() => ordered(list.data?.data ?? []), [list.data]);
  const [order, setOrder] = useState<Row[] | null>(null);
  const shown = order ?? rows;
  const titles = useReferenceTitles(meta, [other], shown);
  const [creating, setCreating] = useState(false);
  const [picking, setPicking] = useState(false);
  const [said, setSaid] = useState("");
  const [focus, setFocus] = useState<string | null>(null);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }));
  const heading = relationHeading(side, lang);
  const what = inPhrase(entityName(target, lang));
  const files = `${target.module}.${target.name}` === FILES;
  const reorderable = relation.ops.update && relation.fields.some((f) => f.name === "orderIndex");
  const linked = useMemo(() => new Set(shown.map((l) => String(l[other.name] ?? ""))), [shown, other.name]);
  const help = side.left ? inLanguage(relation.help, lang) : undefined;

  useEffect(() => {
    if (!focus) return;
    document.querySelector<HTMLElement>(`[data-link="${focus}"] [data-handle]`)?.focus();
  });

  const fail = (e: unknown) => toast.error(e instanceof ApiError ? e.first : at("admin.failed"));
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: keys.all(relation.path) });
    setOrder(null);
    onChanged?.();
  };
  const titleOf = (l: Row) => {
    const row = titles(other, l[other.name])?.row;
    return row ? rowTitle(target, row, lang) : t("ed.rel.missing");
  };

  async function move(from: number, to: number) {
    if (from < 0 || to < 0 || to >= shown.length || from === to) return;
    const next = arrayMove(shown, from, to);
    const moved = next[to]!;
    setOrder(next);
    setFocus(moved.id);
    setSaid(t("ed.rel.moved", { name: titleOf(moved), position: to + 1, count: next.length }));
    try {
      // One request, one transaction: all the new positions or none.
      const changes = renumber(next);
      if (relation.ops.bulk) await bulkUpdate(relation)(changes.map(({ id: linkId, orderIndex }) => ({ id: linkId, data: { orderIndex } })));
      else for (const { id: linkId, orderIndex } of changes) await entityClient(relation).update(linkId, { orderIndex });
      await refresh();
    } catch (err) {
      setOrder(null);
      fail(err);
    }
  }

  async function link(row: Row) {
    if (linked.has(row.id)) return;
    try {
      await entityClient(relation).create({ [fixed]: id, [other.name]: row.id, ...(reorderable ? { orderIndex: shown.length } : {}) });
      // The new record is known: its title shows at once, not after the titles' own request.
      qc.setQueryData(keys.one(target.path, row.id), row);
      await refresh();
      const name = rowTitle(target, row, lang);
      setSaid(t("ed.rel.added", { name }));
      toast.success(t("ed.rel.added", { name }));
    } catch (err) {
      fail(err);
    }
  }

  async function unlink(l: Row) {
    const name = titleOf(l);
    try {
      await entityClient(relation).remove(l.id);
      await refresh();
      setSaid(t("ed.rel.unlinked", { name }));
      toast.success(t("ed.rel.unlinked", { name }));
    } catch (err) {
      fail(err);
    }
  }

  if ((list.data?.total ?? 0) > RELATION_LIMIT) return <>{overflow}</>;
  return (
    <div className="grid gap-2" data-relation={`${relation.module}.${relation.name}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-base font-semibold">{heading}</h3>
        <span className="text-sm text-muted-foreground">{list.data ? new Intl.NumberFormat(lang).format(shown.length) : ""}</span>
        {relation.ops.create ? (
          <div className="ml-auto flex flex-wrap gap-2">
            {files ? (
              <Button type="button" size="sm" variant="outline" onClick={() => setPicking(true)} data-testid="relation-pick">
                {t("ed.rel.pickFile")}
              </Button>
            ) : (
              <Picker side={side} lang={lang} linked={linked} onPick={(r) => void link(r)} />
            )}
            {!files && target.ops.create ? (
              <Button type="button" size="sm" variant="outline" onClick={() => setCreating(true)} aria-label={t("ed.rel.createNamed", { what })}>
                {t("ed.rel.create")}
              </Button>
            ) : null}
          </div>
        ) : null}
      </div>
      {help ? <p className="text-sm text-neutral-700">{help}</p> : null}
      {list.isError ? (
        <p role="alert" className="text-sm text-destructive">
          {list.error instanceof ApiError ? list.error.first : String(list.error)}
        </p>
      ) : list.data && !shown.length ? (
        <p className="rounded-md border border-dashed border-border px-3 py-4 text-center text-sm text-neutral-700">{t("ed.rel.empty")}</p>
      ) : (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={(e: DragEndEvent) => {
            if (!e.over || e.active.id === e.over.id) return;
            void move(
              shown.findIndex((l) => l.id === e.active.id),
              shown.findIndex((l) => l.id === e.over!.id),
            );
          }}
        >
          <SortableContext items={shown.map((l) => l.id)} strategy={verticalListSortingStrategy}>
            <ul aria-label={heading} aria-describedby={reorderable && shown.length > 1 ? `${relation.name}-${fixed}-help` : undefined} className="grid gap-1.5">
              {shown.map((l, i) => (
                <LinkedItem
                  key={l.id}
                  link={l}
                  side={side}
                  target={titles(other, l[other.name])?.row}
                  lang={lang}
                  draggable={reorderable && shown.length > 1}
                  onMove={(by) => void move(i, i + by)}
                  onUnlink={relation.ops.delete ? () => void unlink(l) : null}
                  onSettings={onSettings && relation.ops.update ? () => onSettings(l.id) : null}
                />
              ))}
            </ul>
          </SortableContext>
        </DndContext>
      )}
      {reorderable && shown.length > 1 ? (
        <p id={`${relation.name}-${fixed}-help`} className="text-xs text-neutral-700">
          {t("ed.rel.help")}
        </p>
      ) : null}
      <output className="sr-only" aria-live="polite">
        {said}
      </output>
      <Dialog open={creating} onOpenChange={setCreating}>
        {creating ? (
          <DialogContent title={formTitle(at, target, lang, false)} className="w-[min(56rem,calc(100vw-2rem))]">
            <EntityForm
              entity={target}
              meta={meta}
              lang={lang}
              id={null}
              onSaved={(newId) => {
                setCreating(false);
                void entityClient(target)
                  .one(newId)
                  .then((row) => link(row))
                  .catch(fail);
              }}
            />
          </DialogContent>
        ) : null}
      </Dialog>
      <Dialog open={picking} onOpenChange={setPicking}>
        {picking ? (
          <DialogContent title={t("ed.rel.pickFileOf", { name: heading })} className="w-[min(64rem,calc(100vw-2rem))]">
            <Suspense fallback={<p className="text-sm">{at("admin.loading")}</p>}>
              <MediaPicker
                lang={lang}
                pick={(row) => {
                  setPicking(false);
                  void link(row);
                }}
              />
            </Suspense>
          </DialogContent>
        ) : null}
      </Dialog>
    </div>
  );
}

/**
 * Every relation of record `id` as its list, one section each (the page builder's block form;
 * the record dialog puts them with the tables of what else points at the record).
 */
export function RelationLists({ entity, meta, lang, id, onChanged }: { entity: EntityMeta; meta: Meta; lang: string; id: string; onChanged?: () => void }) {
  const t = useEditorT();
  return entity.referencedBy.map((r) => {
    const sub = findEntity(meta, `${r.module}.${r.name}`);
    const side = sub ? relationSide(meta, sub, r.field) : null;
    if (!side) return null;
    return (
      <section key={`${r.module}.${r.name}.${r.field}`} aria-label={relationHeading(side, lang)} className="rounded-lg border border-border p-3">
        <RelationList side={side} meta={meta} lang={lang} id={id} onChanged={onChanged} overflow={<p className="text-sm text-neutral-700">{t("ed.rel.tooMany", { name: relationHeading(side, lang) })}</p>} />
      </section>
    );
  });
}
