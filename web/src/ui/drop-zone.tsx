import { type DragEvent, useRef, useState } from "react";
import { cn } from "./cn";
import { Button } from "./button";

interface DropZoneProps {
  /** Called with the dropped or chosen files (one at most unless `multiple`). */
  onFiles: (files: File[]) => void;
  /** The accessible name of the file input (what tests and assistive technology find it by). */
  label: string;
  /** The button that opens the picker: the keyboard's way in. */
  choose: string;
  /** The line inviting a drop. */
  hint: string;
  /** Shown while files are dragged over the zone. */
  dropping?: string;
  accept?: string;
  multiple?: boolean;
  disabled?: boolean;
  invalid?: boolean;
  className?: string;
  testId?: string;
}

function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes("Files");
}

/**
 * Where files are dropped, with a button that opens the file picker (the input itself is
 * visually hidden and out of the tab order; the button is what the keyboard reaches).
 */
export function DropZone({ onFiles, label, choose, hint, dropping, accept, multiple, disabled, invalid, className, testId }: DropZoneProps) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const take = (list: FileList | File[] | null | undefined) => {
    const files = Array.from(list ?? []);
    if (files.length && !disabled) onFiles(multiple ? files : files.slice(0, 1));
  };
  const enter = (e: DragEvent) => {
    if (disabled || !hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
    setOver(true);
  };
  return (
    <div
      data-testid={testId}
      data-over={over || undefined}
      onDragEnter={enter}
      onDragOver={enter}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        take(e.dataTransfer?.files);
      }}
      className={cn(
        "flex flex-wrap items-center justify-center gap-3 rounded-lg border-2 border-dashed border-border px-4 py-5 text-center text-sm text-neutral-700 transition-colors",
        over && "border-neutral-900 bg-muted",
        invalid && "border-destructive",
        disabled && "opacity-60",
        className,
      )}
    >
      <span aria-live="polite">{over && dropping ? dropping : hint}</span>
      <Button type="button" size="sm" variant="outline" disabled={disabled} onClick={() => input.current?.click()}>
        {choose}
      </Button>
      <input
        ref={input}
        type="file"
        className="sr-only"
        tabIndex={-1}
        aria-label={label}
        accept={accept}
        multiple={multiple}
        disabled={disabled}
        onChange={(e) => {
          take(e.target.files);
          // The same file chosen again is a change too.
          e.target.value = "";
        }}
      />
    </div>
  );
}
