import { Dialog as D } from "radix-ui";
import type { ComponentProps } from "react";
import { cn } from "./cn";

/** A panel that slides over the page from its right edge (a Radix dialog: focus kept inside,
 * Escape and a click outside close it, focus goes back to what opened it). Its content names it
 * with a `SheetTitle`. */
export const Sheet = D.Root;
export const SheetTrigger = D.Trigger;
export const SheetClose = D.Close;
export const SheetTitle = D.Title;

export function SheetContent({ className, ...props }: ComponentProps<typeof D.Content>) {
  return (
    <D.Portal>
      <D.Overlay className="fixed inset-0 z-50 bg-black/40" />
      <D.Content
        data-slot="sheet"
        aria-describedby={undefined}
        className={cn("fixed inset-y-0 right-0 z-50 flex w-full max-w-sm flex-col overflow-y-auto bg-white shadow-xl focus:outline-none", className)}
        {...props}
      />
    </D.Portal>
  );
}
