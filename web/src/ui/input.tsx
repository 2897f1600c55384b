import type { ComponentProps } from "react";
import { cn } from "./cn";

const field =
  "w-full rounded-md border border-border bg-white px-3 py-2 text-sm placeholder:text-neutral-500 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-neutral-900 disabled:opacity-60";

export function Input({ className, ...props }: ComponentProps<"input">) {
  return <input data-slot="input" className={cn(field, "h-9", className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<"textarea">) {
  return <textarea data-slot="textarea" className={cn(field, "min-h-24 font-mono", className)} {...props} />;
}

export function Label({ className, ...props }: ComponentProps<"label">) {
  // oxlint-disable-next-line jsx-a11y/label-has-associated-control -- callers pass htmlFor
  return <label data-slot="label" className={cn("text-sm font-medium", className)} {...props} />;
}

export function Select({ className, ...props }: ComponentProps<"select">) {
  return <select data-slot="select" className={cn(field, "h-9", className)} {...props} />;
}
