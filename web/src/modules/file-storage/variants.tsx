import { fileUrl, linked, type Rec } from "@/lib/content";
import type { ModuleVariants, VariantProps } from "@/lib/registry";
import { Block } from "../shared";

/** A stored file: a video element for video types, an image otherwise. */
export function FileView({ file }: { file: Rec }) {
  const src = fileUrl(file);
  const mime = typeof file.mimeType === "string" ? file.mimeType : "";
  const cls = typeof file.className === "string" ? file.className : "h-auto max-w-full rounded-2xl";
  // oxlint-disable-next-line jsx-a11y/media-has-caption -- stored videos have no caption track yet
  if (mime.startsWith("video/")) return <video src={src} controls preload="metadata" className={cls} data-testid="file-video" />;
  return <img src={src} alt={typeof file.alt === "string" ? file.alt : ""} loading="lazy" className={cls} data-testid="file-image" />;
}

function Files({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <div className="grid gap-6 md:grid-cols-2">
        {linked(data, "widgets-to-files").map((f) => (
          <FileView key={f.id} file={f} />
        ))}
      </div>
    </Block>
  );
}

export const variants: ModuleVariants = { default: Files };
