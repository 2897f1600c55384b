import { cn } from "./cn";

/**
 * A labelled progress bar: `value` 0–1, or null while the share is unknown (indeterminate).
 * `text` is shown beside it (the percentage, or what is happening).
 */
export function Progress({ value, label, text, className, testId }: { value: number | null; label: string; text?: string; className?: string; testId?: string }) {
  return (
    <div className={cn("flex items-center gap-2", className)}>
      <progress
        aria-label={label}
        aria-valuetext={text}
        max={1}
        value={value ?? undefined}
        data-testid={testId}
        className="h-2 min-w-24 flex-1 appearance-none overflow-hidden rounded-full bg-muted [&::-moz-progress-bar]:bg-primary [&::-webkit-progress-bar]:bg-muted [&::-webkit-progress-value]:bg-primary [&::-webkit-progress-value]:transition-[width]"
      />
      {text ? <span className="w-24 shrink-0 text-right text-xs tabular-nums text-neutral-700">{text}</span> : null}
    </div>
  );
}
