// The media library: the picker of every file field, rich text and file relation of the admin's
// forms, hence the admin kit's; file-storage shows it as its files' screen (`admin-part.ts`).
import { useQueryClient } from "@tanstack/react-query";
import { FilePlay, FileText, Trash } from "lucide-react";
import { useDeferredValue, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "@/i18n";
import { toast } from "sonner";
import { entityClient, keys, type ListParams, type Row, useEntityDelete, useEntityList } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, findEntity, type Meta, useMeta } from "@/api/meta";
import { UPLOAD_ACCEPT, type UploadProgress } from "@/api/upload";
import { EntityFormDialog } from "./table";
import { baseName, UploadBar, uploadMessage } from "./widgets/file";
import { fileUrl } from "@/site/content";
import { Pager } from "./pager";
import { Button } from "@/ui/button";
import { ConfirmDialog } from "@/ui/dialog";
import { DropZone } from "@/ui/drop-zone";
import { Input } from "@/ui/input";
import { fileKind, isSizable, sizedUrl } from "@/ui/media";

export const FILES_ENTITY = "file-storage.file";
const PAGE = 24;
/** Uploads in flight at once; the rest wait their turn. */
const PARALLEL = 3;

/** What a file is called: its title, else the name it was uploaded with, else its stored name. */
export function fileName(r: Row): string {
  for (const k of ["adminTitle", "originalName"]) {
    const v = r[k];
    if (typeof v === "string" && v.trim()) return v;
  }
  return baseName(fileUrl(r));
}

/** A file's text alternative: its `alt`, else the name it was uploaded with, else its title. */
export function fileAlt(r: Row): string {
  for (const k of ["alt", "originalName", "adminTitle"]) {
    const v = r[k];
    if (typeof v === "string" && v.trim()) return v;
  }
  return baseName(fileUrl(r));
}

/** The field of the files entity that holds the file (declared with the `file` format). */
function fileField(e: EntityMeta): string {
  return e.fields.find((f) => f.format === "file")?.name ?? "file";
}

/** Runs `work` over `items`, at most `n` at a time. */
async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const runners = Array.from({ length: Math.min(n, queue.length) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  });
  await Promise.all(runners);
}

/** A tile's picture: raster images as a 256-pixel WebP, SVG as it is, video and PDF as an icon. */
function Thumb({ row }: { row: Row }) {
  const { t } = useTranslation();
  const url = fileUrl(row);
  const mime = typeof row.mimeType === "string" && row.mimeType ? row.mimeType : null;
  const kind = fileKind(url, mime);
  if (kind === "image") {
    const sized = isSizable(url);
    return (
      <img
        src={sized ? sizedUrl(url, 256) : url}
        alt={fileAlt(row)}
        loading="lazy"
        width={256}
        height={256}
        className={sized ? "aspect-square w-full bg-muted object-cover" : "aspect-square w-full bg-muted object-contain p-2"}
        data-testid="media-thumb"
      />
    );
  }
  const video = kind === "video";
  const pdf = mime === "application/pdf" || /\.pdf$/i.test(url);
  const Icon = video ? FilePlay : FileText;
  return (
    <span className="flex aspect-square w-full flex-col items-center justify-center gap-2 bg-muted text-neutral-700" data-testid="media-thumb">
      <Icon aria-hidden className="h-10 w-10" />
      <span className="text-xs font-medium uppercase">{video ? t("media.video") : pdf ? t("media.pdf") : t("media.file")}</span>
    </span>
  );
}

interface Sending {
  key: string;
  name: string;
  progress: UploadProgress | null;
  /** Why it failed (worded when shown, in the current language). */
  error: unknown;
}

/** The file-storage files as a media library: thumbnails, drop-to-upload (many at once), edit, delete.
 * With `pick`, it is a picker: a tile chooses its file (the rich-text editor's image, a file field). */
export function MediaLibrary({ lang, pick }: { lang: string; pick?: (row: Row) => void }) {
  const { t } = useTranslation();
  const meta = useMeta();
  const entity = meta.data ? findEntity(meta.data, FILES_ENTITY) : undefined;
  if (!meta.data || !entity) return <p className="text-sm">{t("admin.loading")}</p>;
  return <Library entity={entity} meta={meta.data} lang={lang} pick={pick} />;
}

/** A file's text alternative in `lang`: its alt in that language, else its alt, else its name. */
export function fileAltIn(r: Row, lang: string): string {
  const own = r.localizedAlt && typeof r.localizedAlt === "object" ? (r.localizedAlt as Record<string, unknown>)[lang] : undefined;
  return typeof own === "string" && own.trim() ? own.trim() : fileAlt(r);
}

function Library({ entity, meta, lang, pick }: { entity: EntityMeta; meta: Meta; lang: string; pick?: (row: Row) => void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const headingId = useId();
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search);
  const [page, setPage] = useState(0);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [sending, setSending] = useState<Sending[]>([]);
  const [done, setDone] = useState(0);
  const counter = useRef(0);
  const params: ListParams = { search: deferred, page, size: PAGE, sort: { field: "createdAt", desc: true } };
  const list = useEntityList(entity, params);
  const remove = useEntityDelete(entity);
  const rows = list.data?.data ?? [];
  const total = list.data?.total ?? null;
  const pages = total === null || !list.data?.exact ? null : Math.max(1, Math.ceil(total / PAGE));
  const field = fileField(entity);

  const change = (key: string, patch: Partial<Sending>) => setSending((all) => all.map((s) => (s.key === key ? { ...s, ...patch } : s)));

  async function send(files: File[]) {
    const items = files.map((file) => {
      counter.current += 1;
      return { file, key: `${counter.current}-${file.name}` };
    });
    setSending((all) => [...all, ...items.map(({ key, file }) => ({ key, name: file.name, progress: null, error: null }))]);
    setPage(0);
    await pool(items, PARALLEL, async ({ file, key }) => {
      try {
        await entityClient(entity).create({ adminTitle: file.name.slice(0, 500) }, { files: { [field]: file }, onProgress: (progress) => change(key, { progress }) });
        setSending((all) => all.filter((s) => s.key !== key));
        setDone((n) => n + 1);
        void qc.invalidateQueries({ queryKey: keys.all(entity.path) });
      } catch (e) {
        change(key, { progress: null, error: e ?? new Error("failed") });
      }
    });
  }

  // A picture pasted anywhere on the library (a screenshot, an image copied from a page) is
  // uploaded as a dropped one is; text pasted into the search stays text.
  useEffect(() => {
    if (!entity.ops.create) return undefined;
    const onPaste = (e: ClipboardEvent) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      void send(files.map((f, i) => (f.name && f.name !== "image.png" ? f : new File([f], `pasted-${Date.now()}-${i + 1}.${f.type.split("/")[1] ?? "png"}`, { type: f.type }))));
    };
    document.addEventListener("paste", onPaste);
    return () => document.removeEventListener("paste", onPaste);
  });
  return (
    <section aria-labelledby={headingId} className="grid gap-4" data-testid="media-library">
      <div>
        {pick ? (
          <h2 id={headingId} className="text-lg font-semibold">
            {t("media.pickTitle")}
          </h2>
        ) : (
          <h1 id={headingId} className="text-xl font-semibold">
            {t("media.title")}
          </h1>
        )}
        <p className="mt-1 text-sm text-neutral-700">{t("media.help")}</p>
      </div>
      {entity.ops.create ? (
        <DropZone
          label={t("media.input")}
          choose={t("upload.chooseMany")}
          hint={t("upload.dropMany")}
          dropping={t("upload.dropping")}
          accept={UPLOAD_ACCEPT}
          multiple
          onFiles={(files) => void send(files)}
          className="py-8"
          testId="media-drop"
        />
      ) : null}
      <output className="sr-only">{done ? t("media.uploaded", { count: done }) : ""}</output>
      {sending.length ? (
        <ul aria-label={t("media.uploads")} className="grid gap-2" data-testid="media-uploads">
          {sending.map((s) => (
            <li key={s.key} className="grid gap-1 rounded-md border border-border p-2 text-sm">
              <span className="truncate font-medium">{s.name}</span>
              {s.error !== null ? (
                <div className="flex items-start justify-between gap-2">
                  <p role="alert" className="text-destructive" data-testid="media-upload-error">
                    {t("media.failed", { name: s.name, message: uploadMessage(s.error, t) })}
                  </p>
                  <Button size="sm" variant="outline" onClick={() => setSending((all) => all.filter((x) => x.key !== s.key))}>
                    {t("media.dismiss")}
                  </Button>
                </div>
              ) : (
                <UploadBar progress={s.progress ?? { loaded: 0, total: 0 }} name={s.name} />
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <Input
        type="search"
        placeholder={t("media.search")}
        aria-label={t("media.search")}
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(0);
        }}
        className="max-w-sm"
      />
      {list.isError ? (
        <p role="alert" className="text-sm text-destructive">
          {list.error instanceof ApiError ? list.error.first : String(list.error)}
        </p>
      ) : null}
      {list.isSuccess && rows.length === 0 ? <p className="text-sm text-neutral-700">{search ? t("admin.noFound") : t("media.empty")}</p> : null}
      <ul aria-label={t("media.files")} className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-4 2xl:grid-cols-6">
        {rows.map((r) => {
          const name = fileName(r);
          return (
            <li
              key={r.id}
              className="relative overflow-hidden rounded-lg border border-border bg-white hover:bg-muted"
              data-testid="media-tile"
              data-row={r.id}
            >
              <Thumb row={r} />
              {/* The button's box covers the whole tile, so the picture opens the file too. */}
              <button
                type="button"
                className="block w-full cursor-pointer truncate px-2 pt-1.5 text-left text-sm font-medium after:absolute after:inset-0 after:rounded-lg focus-visible:outline-none focus-visible:after:ring-2 focus-visible:after:ring-inset focus-visible:after:ring-neutral-900"
                onClick={() => (pick ? pick(r) : setEditing(r.id))}
                data-testid="media-open"
              >
                <span className="sr-only">{pick ? t("media.choose") : t("admin.edit")} </span>
                {name}
              </button>
              <p className="truncate px-2 pb-1.5 text-xs text-neutral-700">{typeof r.mimeType === "string" ? r.mimeType : ""}</p>
              {entity.ops.delete && !pick ? (
                <Button size="icon" variant="outline" className="absolute right-1.5 top-1.5 z-10 h-8 w-8 bg-white/90" aria-label={t("media.delete", { name })} onClick={() => setDeleting(r)}>
                  <Trash aria-hidden className="h-4 w-4" />
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
      <Pager label={t("media.pages")} page={page} pages={pages} more={rows.length >= PAGE} onPage={setPage} />
      {editing ? (
        <EntityFormDialog key={editing} open onOpenChange={(o) => (o ? undefined : setEditing(null))} entity={entity} meta={meta} lang={lang} id={editing} />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => (o ? undefined : setDeleting(null))}
        title={deleting ? t("media.deleteQuestion", { name: fileName(deleting) }) : t("admin.deleteQuestion")}
        cancel={t("admin.cancel")}
        confirm={t("admin.delete")}
        onConfirm={() => {
          const r = deleting;
          setDeleting(null);
          if (r) remove.mutate(r.id, { onError: (e) => toast.error(e instanceof ApiError ? e.first : String(e)) });
        }}
      />
    </section>
  );
}
