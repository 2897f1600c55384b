import { useContext } from "react";
import { cn } from "./cn";
import { MediaPriority } from "./media-priority";

const VIDEO = /\.(mp4|webm|ogg|mov)(\?|$)/i;
const IMAGE = /\.(png|jpe?g|webp|gif|avif|svg)(\?|$)/i;

/** The widths the server makes of a stored raster image (`?w=`); any other width is a 400. */
export const IMAGE_WIDTHS = [64, 128, 256, 384, 640, 800, 1080, 1280, 1920] as const;
export type ImageWidth = (typeof IMAGE_WIDTHS)[number];

/** An uploaded raster image (`/files/<sha-256>.<ext>`): the server makes other sizes of it on demand.
 * SVG, video and the demo's files (`/files/demo/…`) are served as they are. */
const SIZABLE = /^\/files\/[0-9a-f]{64}\.(png|jpe?g|webp|gif)$/;

export function isSizable(src: string): boolean {
  return SIZABLE.test(src);
}

/** The URL of a stored raster image `width` pixels wide: a photograph (JPEG) stays JPEG, the
 * server's WebP being lossless (several times a JPEG's bytes for a photo); graphics become WebP. */
export function sizedUrl(src: string, width: ImageWidth): string {
  return `${src}?w=${width}&format=${/\.jpe?g$/i.test(src) ? "jpeg" : "webp"}`;
}

/**
 * The `srcset` of a stored raster image: each allowed width (see `sizedUrl`) below the image's own, then
 * the original at its own width when that is within the largest allowed. Without a known width,
 * every allowed width. Undefined for anything the server does not size.
 */
export function srcSetOf(src: string, intrinsicWidth?: number | null): string | undefined {
  if (!isSizable(src)) return undefined;
  const known = intrinsicWidth && intrinsicWidth > 0 ? intrinsicWidth : null;
  const widths = known === null ? IMAGE_WIDTHS : IMAGE_WIDTHS.filter((w) => w < known);
  const parts = widths.map((w) => `${sizedUrl(src, w)} ${w}w`);
  const largest = IMAGE_WIDTHS[IMAGE_WIDTHS.length - 1] ?? 0;
  if (known !== null && known <= largest) parts.push(`${src} ${known}w`);
  return parts.length ? parts.join(", ") : undefined;
}

/** What a stored file is shown as: by its mime type, else by its extension. */
export function fileKind(src: string, mimeType?: string | null): "image" | "video" | "other" {
  if (mimeType) return mimeType.startsWith("video/") ? "video" : mimeType.startsWith("image/") ? "image" : "other";
  return VIDEO.test(src) ? "video" : IMAGE.test(src) ? "image" : "other";
}

// In a module of its own: the page (in the public entry) provides it without the rest of this one.
export { MediaPriority };

export interface MediaProps {
  src: string;
  /** Decides image or video; without one, the file's extension does. */
  mimeType?: string | null;
  alt?: string;
  className?: string;
  /** The image's own size (kept as attributes so the page does not shift while it loads). */
  width?: number;
  height?: number;
  /** The `sizes` of a stored raster image's `srcset`: how wide it is shown (default `100vw`). */
  sizes?: string;
  /** Above the fold (the page's first image): loaded eagerly, at high priority. Defaults to `MediaPriority`. */
  priority?: boolean;
  /** `data-testid` prefix: `{testId}-image` / `{testId}-video`. */
  testId?: string;
}

/** A stored file shown as a video element for video types and an image otherwise. */
export function Media({ src, mimeType, alt = "", className, width, height, sizes, priority, testId }: MediaProps) {
  const first = useContext(MediaPriority);
  if (!src) return null;
  const video = mimeType ? mimeType.startsWith("video/") : VIDEO.test(src);
  if (video) {
    return (
      <video src={src} controls preload="metadata" className={className} data-testid={testId && `${testId}-video`}>
        <track kind="captions" />
      </video>
    );
  }
  const eager = priority ?? first;
  const srcSet = srcSetOf(src, width);
  return (
    <img
      loading={eager ? "eager" : "lazy"}
      fetchPriority={eager ? "high" : undefined}
      sizes={srcSet ? (sizes ?? "100vw") : undefined}
      srcSet={srcSet}
      src={src}
      alt={alt}
      width={width || undefined}
      height={height || undefined}
      className={cn("h-auto max-w-full", className)}
      data-testid={testId && `${testId}-image`}
    />
  );
}
