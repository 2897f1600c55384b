import { cn } from "@/lib/utils";

const VIDEO = /\.(mp4|webm|ogg|mov)(\?|$)/i;

export interface MediaProps {
  src: string;
  /** Decides image or video; without one, the file's extension does. */
  mimeType?: string | null;
  alt?: string;
  className?: string;
  width?: number;
  height?: number;
  /** `data-testid` prefix: `{testId}-image` / `{testId}-video`. */
  testId?: string;
}

/** A stored file shown as a video element for video types and an image otherwise. */
export function Media({ src, mimeType, alt = "", className, width, height, testId }: MediaProps) {
  if (!src) return null;
  const video = mimeType ? mimeType.startsWith("video/") : VIDEO.test(src);
  if (video) {
    return (
      <video src={src} controls preload="metadata" className={className} data-testid={testId && `${testId}-video`}>
        <track kind="captions" />
      </video>
    );
  }
  return <img src={src} alt={alt} width={width} height={height} loading="lazy" className={cn("h-auto max-w-full", className)} data-testid={testId && `${testId}-image`} />;
}
