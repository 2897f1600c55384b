import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Input } from "@/ui/input";
import { Media } from "@/ui/media";
import type { WidgetProps } from "./types";

/** Image or video, chosen by mime type (or, without one, by the file's extension). */
export function FilePreview({ src, mimeType, alt = "" }: { src: string; mimeType?: string | null; alt?: string }) {
  return <Media src={src} mimeType={mimeType} alt={alt} testId="file-preview" className="max-h-48 rounded-md border border-border object-contain" />;
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
