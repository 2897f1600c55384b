import type { ComponentProps } from "react";
import { cn } from "./cn";

export function Card({ className, ...props }: ComponentProps<"div">) {
  return <div data-slot="card" className={cn("rounded-xl border border-border bg-white p-6 shadow-sm", className)} {...props} />;
}

export function Badge({ className, ...props }: ComponentProps<"span">) {
  return (
    <span
      data-slot="badge"
      className={cn("inline-flex items-center rounded-full border border-border bg-muted px-2 py-0.5 text-xs font-medium", className)}
      {...props}
    />
  );
}
