import { FileText } from "lucide-react";
import { lazy, Suspense, useEffect, useState } from "react";
import { type TFunction, useTranslation } from "@/i18n";
import { ApiError } from "@/api/http";
import { fraction, UPLOAD_ACCEPT, type UploadProgress } from "@/api/upload";
import { formatBytes } from "@/lib/utils";
import { Button } from "@/ui/button";
import { DropZone } from "@/ui/drop-zone";
import { Input } from "@/ui/input";
import { fileKind, Media } from "@/ui/media";
import { Progress } from "@/ui/progress";
import { fieldName, findEntity } from "@/api/meta";
import { fileUrl } from "@/site/content";
import { Dialog, DialogContent } from "@/ui/dialog";
import { useEditorT } from "../editor-i18n";
import type { FileProps, WidgetProps } from "./types";

// The media library loads with its picker, not with every form.
const MediaPicker = lazy(() => import("../media-library").then((m) => ({ default: m.MediaLibrary })));

/** The last segment of a URL (a stored file's name). */
export function baseName(url: string): string {
  return url.split(/[?#]/)[0]?.split("/").pop() ?? "";
}

/** A local object URL for `file` while it is shown (revoked when the file changes or the view goes). */
export function useObjectUrl(file: Blob | null | undefined): string | null {
  const [url, setUrl] = useState<{ file: Blob; url: string } | null>(null);
  useEffect(() => {
    if (!file) return undefined;
    const u = URL.createObjectURL(file);
    // An object URL is a resource outside React: made and revoked with the effect, shown through state.
    // oxlint-disable-next-line react/set-state-in-effect
    setUrl({ file, url: u });
    return () => URL.revokeObjectURL(u);
  }, [file]);
  return file && url?.file === file ? url.url : null;
}

/** Image or video, chosen by mime type (or, without one, by the file's extension); anything else a link. */
export function FilePreview({ src, mimeType, alt = "", name }: { src: string; mimeType?: string | null; alt?: string; name?: string }) {
  if (fileKind(src, mimeType) === "other") {
    const label = name || baseName(src);
    const blob = src.startsWith("blob:");
    return (
      <p className="flex items-center gap-2 text-sm" data-testid="file-preview-other">
        <FileText aria-hidden className="h-6 w-6 shrink-0" />
        {blob ? (
          <span>{label}</span>
        ) : (
          <a href={src} target="_blank" rel="noopener noreferrer" className="underline underline-offset-4">
            {label}
          </a>
        )}
      </p>
    );
  }
  return <Media src={src} mimeType={mimeType} alt={alt} sizes="384px" testId="file-preview" className="max-h-48 w-auto rounded-md border border-border object-contain" />;
}

/** What to say about a failed upload: too large, a refused type and a dropped connection in words, the rest as the server said. */
export function uploadMessage(e: unknown, t: TFunction): string {
  if (!(e instanceof ApiError)) return e instanceof Error ? e.message : String(e);
  if (e.status === 413) return t("upload.tooLarge", { detail: e.first });
  if (e.status === 415) return t("upload.badType", { detail: e.first });
  if (e.status === 0) return t("upload.interrupted");
  return e.first;
}

/** The progress of an upload, with its percentage (or 'processing' once the bytes are sent). */
export function UploadBar({ progress, name, testId }: { progress: UploadProgress; name: string; testId?: string }) {
  const { t, i18n } = useTranslation();
  const share = fraction(progress);
  const text = share === null ? t("upload.sending") : share >= 1 ? t("upload.processing") : new Intl.NumberFormat(i18n.language, { style: "percent" }).format(share);
  return <Progress value={share} label={t("upload.progress", { name })} text={text} testId={testId} />;
}

/**
 * A stored file's location plus a drop zone. Dropping or choosing a file previews it at once
 * (image or video by its type) and reports it through `onFile`: the form sends it with the next
 * save, as multipart, and the server puts the stored file's URL in the field. Replace picks
 * another; Remove clears the field and the picked file.
 */
export function FileWidget({ id, field, value, onChange, disabled, invalid, file, onFile, progress, meta, lang }: WidgetProps & FileProps) {
  const { t, i18n } = useTranslation();
  const et = useEditorT();
  const [picking, setPicking] = useState(false);
  // Any file field but the library's own can take a file already in the library.
  const library = !disabled && !findEntity(meta, "file-storage.file")?.fields.some((f) => f.name === field.name && f === field);
  const [own, setOwn] = useState<File | null>(null);
  const pending = file === undefined ? own : file;
  const local = useObjectUrl(pending);
  const stored = typeof value === "string" ? value : "";
  const src = pending ? (local ?? "") : stored;
  const name = pending?.name ?? baseName(stored);
  const pick = (f: File | null) => {
    if (file === undefined) setOwn(f);
    onFile?.(f);
    // A required field is filled by the server's URL on save; until then the name stands in.
    if (f && !stored) onChange(f.name);
  };
  return (
    <div className="grid gap-2" data-testid="file-widget">
      <Input id={id} disabled={disabled} aria-invalid={invalid || undefined} value={stored} onChange={(e) => onChange(e.target.value)} />
      <DropZone
        label={t("admin.file")}
        choose={src || pending ? t("upload.replace") : t("upload.choose")}
        hint={t("upload.drop")}
        dropping={t("upload.dropping")}
        accept={UPLOAD_ACCEPT}
        disabled={disabled}
        invalid={invalid}
        onFiles={(fs) => pick(fs[0] ?? null)}
      />
      {library ? (
        <div>
          <Button type="button" size="sm" variant="outline" onClick={() => setPicking(true)} data-testid="file-library">
            {et("ed.rel.pickFile")}
          </Button>
          <Dialog open={picking} onOpenChange={setPicking}>
            {picking ? (
              <DialogContent title={et("ed.rel.pickFileOf", { name: fieldName(field, lang) })} className="w-[min(64rem,calc(100vw-2rem))]">
                <Suspense fallback={<p className="text-sm">{t("admin.loading")}</p>}>
                  <MediaPicker
                    lang={lang}
                    pick={(row) => {
                      setPicking(false);
                      pick(null);
                      onChange(fileUrl(row));
                    }}
                  />
                </Suspense>
              </DialogContent>
            ) : null}
          </Dialog>
        </div>
      ) : null}
      {src ? <FilePreview src={src} mimeType={pending?.type || undefined} alt={t("upload.preview", { name })} name={name} /> : null}
      {pending ? (
        <p className="text-sm text-neutral-700" data-testid="file-pending">
          {t("upload.pending", { name: pending.name, size: formatBytes(pending.size, i18n.language) })}
        </p>
      ) : null}
      {progress ? <UploadBar progress={progress} name={name} testId="file-progress" /> : null}
      {(stored || pending) && !disabled ? (
        <div>
          <Button
            size="sm"
            variant="outline"
            onClick={() => {
              pick(null);
              onChange("");
            }}
          >
            {t("upload.remove")}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
