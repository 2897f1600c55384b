import { DropdownMenu as M } from "radix-ui";
import type { ComponentProps } from "react";
import { cn } from "./cn";

export const Dropdown = M.Root;
export const DropdownTrigger = M.Trigger;

export function DropdownContent({ className, ...props }: ComponentProps<typeof M.Content>) {
  return (
    <M.Portal>
      <M.Content
        align="end"
        sideOffset={6}
        className={cn("z-50 min-w-56 rounded-md border border-border bg-white p-1 shadow-lg", className)}
        {...props}
      />
    </M.Portal>
  );
}

export function DropdownItem({ className, ...props }: ComponentProps<typeof M.Item>) {
  return (
    <M.Item
      className={cn("cursor-pointer rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-muted", className)}
      {...props}
    />
  );
}

export const DropdownLabel = M.Label;
export const DropdownSeparator = () => <M.Separator className="my-1 h-px bg-border" />;
