import { type ReactNode, useId } from "react";
import { Button } from "./button";
import { Input, Label } from "./input";

/** A value shown once to be copied (a signing secret, an API key): read-only, selected on focus,
 * with a Copy button; `children` go after the button (a Hide, say). */
export function CopyField({
  value,
  label,
  copyLabel,
  onCopied,
  testId,
  children,
}: {
  value: string;
  /** What the value is, for screen readers. */
  label: string;
  copyLabel: string;
  onCopied: () => void;
  testId?: string;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Label htmlFor={id} className="sr-only">
        {label}
      </Label>
      <Input id={id} readOnly value={value} className="max-w-xl font-mono text-xs" data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
      <Button
        type="button"
        variant="outline"
        size="sm"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(onCopied);
        }}
      >
        {copyLabel}
      </Button>
      {children}
    </div>
  );
}
