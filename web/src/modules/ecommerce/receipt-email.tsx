//! The email a receipt goes to, in the donation and on a product page: checked where it is typed
//! (when left, then on every change), required when the provider mails its receipt (every real
//! one), and a server's word on it (`fields.email`) marked on the field.
import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useRef } from "react";
import { useForm, type UseFormReturn } from "react-hook-form";
import { z } from "zod";
import type { TFunction } from "@/i18n";
import { ApiError } from "@/api/http";
import { applyServerErrors } from "@/lib/form-errors";
import { cn } from "@/ui/cn";

/** The receipt email: an address, or empty when the provider sends no receipt. */
export function receiptSchema(t: TFunction, required: boolean) {
  const address = z.string().trim().email(t("errors.email"));
  return z.object({ email: required ? z.string().trim().min(1, t("errors.emailForInvoice")).pipe(address) : z.union([z.literal(""), address]) });
}

export type ReceiptForm = { email: string };

/** A form holding the receipt email; `required` is read at each check (the provider may change). */
export function useReceiptForm(t: TFunction, required: boolean): UseFormReturn<ReceiptForm> {
  const now = useRef({ t, required });
  useEffect(() => {
    now.current = { t, required };
  });
  return useForm<ReceiptForm>({
    defaultValues: { email: "" },
    mode: "onTouched",
    resolver: (values, context, options) => zodResolver(receiptSchema(now.current.t, now.current.required))(values, context, options),
  });
}

/** Marks the server's word on the email on the field (and moves the focus there); true when it had one. */
export function emailRefused(error: unknown, form: UseFormReturn<ReceiptForm>, t: TFunction): boolean {
  if (!(error instanceof ApiError) || !error.fields.email?.length) return false;
  applyServerErrors(error, form.setError, ["email"], t);
  form.setFocus("email");
  return true;
}

export function ReceiptEmailField({ form, id, label, help, required, testId }: { form: UseFormReturn<ReceiptForm>; id: string; label: string; help: string; required: boolean; testId: string }) {
  const error = form.formState.errors.email?.message;
  return (
    <div>
      <label htmlFor={id} className="text-sm font-semibold">
        {label}
      </label>
      <input
        id={id}
        data-testid={testId}
        type="email"
        autoComplete="email"
        aria-required={required || undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-note`}
        {...form.register("email")}
        className={cn("mt-1 h-11 w-full rounded-xl border bg-white px-3", error ? "border-red-700 ring-1 ring-red-700" : "border-neutral-300")}
      />
      <p id={`${id}-note`} className={cn("mt-1 text-sm", error ? "font-medium text-red-800" : "text-neutral-700")} data-testid={error ? `${testId}-error` : undefined}>
        {error ?? help}
      </p>
    </div>
  );
}
