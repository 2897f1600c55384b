import type { DraggableAttributes, DraggableSyntheticListeners } from "@dnd-kit/core";
import { GripVertical } from "lucide-react";
import { cn } from "@/ui/cn";

/**
 * The handle of a sortable item (a record's linked records, the page builder's blocks): the pointer
 * drags it, the keyboard moves the item one place per arrow key (`onMove`). `data-handle` lets the
 * list give the focus back to the moved item's handle.
 */
export function DragHandle({ label, attributes, listeners, onMove, className }: { label: string; attributes: DraggableAttributes; listeners: DraggableSyntheticListeners; onMove: (by: -1 | 1) => void; className?: string }) {
  return (
    <button
      type="button"
      className={cn("cursor-grab rounded p-1 text-neutral-600 hover:bg-muted active:cursor-grabbing", className)}
      aria-label={label}
      data-handle=""
      {...attributes}
      {...listeners}
      onKeyDown={(e) => {
        if (e.key === "ArrowUp" || e.key === "ArrowDown") {
          e.preventDefault();
          onMove(e.key === "ArrowUp" ? -1 : 1);
        }
      }}
    >
      <GripVertical aria-hidden className="h-4 w-4" />
    </button>
  );
}
