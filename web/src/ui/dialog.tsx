import { AlertDialog as AD, Dialog as D } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

const overlay = "fixed inset-0 z-40 bg-black/40";
const panel =
  "fixed left-1/2 top-1/2 z-50 w-[min(42rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl focus:outline-none";

export const Dialog = D.Root;
export const DialogTrigger = D.Trigger;
export const DialogClose = D.Close;

export function DialogContent({
  className,
  children,
  title,
  description,
  ...props
}: ComponentProps<typeof D.Content> & { title: ReactNode; description?: ReactNode }) {
  return (
    <D.Portal>
      <D.Overlay className={overlay} />
      <D.Content
        data-slot="dialog"
        className={cn(panel, "flex max-h-[80vh] flex-col", className)}
        aria-describedby={description ? undefined : undefined}
        {...props}
      >
        <D.Title className="text-lg font-semibold">{title}</D.Title>
        {description ? (
          <D.Description className="mt-1 text-sm text-muted-foreground">{description}</D.Description>
        ) : (
          <D.Description className="sr-only">{title}</D.Description>
        )}
        <div className="mt-4 min-h-0 flex-1 overflow-y-auto pr-1">{children}</div>
      </D.Content>
    </D.Portal>
  );
}

/** A yes/no question ('Delete?') with Cancel and a destructive confirm button. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  cancel,
  confirm,
  onConfirm,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  cancel: string;
  confirm: string;
  onConfirm: () => void;
}) {
  return (
    <AD.Root open={open} onOpenChange={onOpenChange}>
      <AD.Portal>
        <AD.Overlay className={overlay} />
        <AD.Content className={cn(panel, "max-w-sm")}>
          <AD.Title className="text-lg font-semibold">{title}</AD.Title>
          <AD.Description className="sr-only">{title}</AD.Description>
          <div className="mt-6 flex justify-end gap-2">
            <AD.Cancel className="h-9 rounded-md border border-border px-4 text-sm hover:bg-muted">{cancel}</AD.Cancel>
            <AD.Action className="h-9 rounded-md bg-destructive px-4 text-sm text-white hover:bg-red-800" onClick={onConfirm}>
              {confirm}
            </AD.Action>
          </div>
        </AD.Content>
      </AD.Portal>
    </AD.Root>
  );
}
