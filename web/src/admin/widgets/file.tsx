import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Input } from "@/ui/input";
import type { WidgetProps } from "./types";

const VIDEO = /\.(mp4|webm|ogg|mov)(\?|$)/i;

/** Image or video, chosen by mime type (or, without one, by the file's extension). */
export function FilePreview({ src, mimeType, alt = "" }: { src: string; mimeType?: string | null; alt?: string }) {
  if (!src) return null;
  const video = mimeType ? mimeType.startsWith("video/") : VIDEO.test(src);
  if (video) {
    return <video src={src} controls className="max-h-48 rounded-md border border-border" data-testid="file-preview-video">
        <track kind="captions" />
      </video>;
  }
  return <img src={src} alt={alt} className="max-h-48 rounded-md border border-border object-contain" data-testid="file-preview-image" />;
}

/**
 * A stored file's location plus a local picker. Picking a file previews it at once (image or
 * video by its mime type) and reports the file through `onFile` so the form can upload it.
 */
export function FileWidget({ id, value, onChange, disabled, onFile }: WidgetProps & { onFile?: (f: File | null) => void }) {
  const { t } = useTranslation();
  const [local, setLocal] = useState<{ url: string; type: string } | null>(null);
  useEffect(() => () => (local ? URL.revokeObjectURL(local.url) : undefined), [local]);
  const src = local?.url ?? (typeof value === "string" ? value : "");
  return (
    <div className="grid gap-2">
      <Input id={id} disabled={disabled} value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.target.value)} />
      <input
        type="file"
        aria-label={t("admin.file")}
        accept="image/*,video/*"
        disabled={disabled}
        className="text-sm"
        onChange={(e) => {
          const f = e.target.files?.[0] ?? null;
          setLocal(f ? { url: URL.createObjectURL(f), type: f.type } : null);
          onFile?.(f);
          if (f && !value) onChange(f.name);
        }}
      />
      <FilePreview src={src} mimeType={local?.type} />
    </div>
  );
}
