import { type FormEvent, useState } from "react";
import { useTranslation } from "@/i18n";
import { toast } from "sonner";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { trackEvent } from "@/lib/analytics";
import { useHydrated } from "@/lib/client-only";
import { linked, tr, type Rec } from "@/site/content";
import { errorMessage, fieldMessage } from "@/lib/form-errors";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { cn } from "@/ui/cn";
import { Block } from "@/site/blocks";

type Values = Record<string, string>;

function kindOf(input: Rec): "textarea" | "number" | "text" {
  const v = input.variant ?? "default";
  if (v === "textarea-default" || input.type === "textarea") return "textarea";
  if (v === "number-default" || input.type === "number") return "number";
  return "text";
}

/** The field bots fill and people never see: a request that fills it is dropped by the server. */
export const HONEYPOT = "_gotcha";

/** The honeypot input: off screen, out of the tab order, hidden from assistive technology and
 * from autofill. */
function Honeypot({ id }: { id: string }) {
  const { t } = useTranslation();
  return (
    <div aria-hidden="true" className="absolute -left-[10000px] top-auto h-px w-px overflow-hidden" data-testid="honeypot">
      <label htmlFor={id}>{t("site.honeypot")}</label>
      <input id={id} name={HONEYPOT} type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
    </div>
  );
}

const nameOf = (input: Rec): string => String(input.slug ?? input.id);
/** The element id of `form`'s field `name` (its label's `htmlFor`, its message's prefix). */
const fieldId = (form: Rec, name: string): string => `crm-${form.id}-${name}`;

/**
 * A public CRM form: its inputs (text, textarea, number) in order; submit stores a request.
 *
 * Its inputs are the browser's own (uncontrolled, read with `FormData` on submit), not a form
 * library's: this form hydrates with the home page, and react-hook-form's mount effect re-renders
 * it synchronously inside hydration's commit, which makes React run the effects of the whole page
 * in that same task (the longest task of the home page on a phone). The checks are two: required
 * fields here, everything else by the server, whose field messages are shown under each field.
 */
export function CrmForm({ form, lang }: { form: Rec; lang: string }) {
  const { t } = useTranslation();
  const inputs = linked(form, "forms-to-inputs");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [sending, setSending] = useState(false);
  const [done, setDone] = useState(false);
  // Before hydration the browser would send the form itself (a GET putting the visitor's words
  // in the URL): it can be sent once the page is live.
  const hydrated = useHydrated();
  /** Focuses the first field on screen with a message; false when there is none. */
  const focusFirst = (el: HTMLFormElement, messages: Record<string, string>): boolean => {
    const input = inputs.find((i) => messages[nameOf(i)]);
    if (!input) return false;
    el.querySelector<HTMLElement>(`#${CSS.escape(fieldId(form, nameOf(input)))}`)?.focus();
    return true;
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const el = event.currentTarget;
    if (sending) return;
    const values: Values = {};
    for (const [key, value] of new FormData(el)) if (typeof value === "string") values[key] = value;
    const missing: Record<string, string> = {};
    for (const input of inputs) if (input.isRequired && !values[nameOf(input)]?.trim()) missing[nameOf(input)] = t("site.required");
    setErrors(missing);
    if (focusFirst(el, missing)) return;
    setSending(true);
    try {
      await api.post("/api/crm/forms/{id}/requests", { params: { path: { id: form.id } }, body: values });
      trackEvent("form-submitted");
      toast.success(t("site.submitted"));
      setDone(true);
      // The prototype's: a field named `reset` would shadow the form's method.
      HTMLFormElement.prototype.reset.call(el);
    } catch (e) {
      const fields = e instanceof ApiError ? Object.entries(e.fields).filter(([, messages]) => messages[0]) : [];
      const messages = Object.fromEntries(fields.map(([field, list]) => [field, fieldMessage(list[0] ?? "", t)]));
      setErrors(messages);
      focusFirst(el, messages);
      // Each field says what is wrong with it; the toast sends the visitor to them.
      toast.error(fields.length ? t("errors.code.invalid_input") : errorMessage(e, t));
    } finally {
      setSending(false);
    }
  };
  // A field's message goes as soon as it is edited.
  const edited = (e: FormEvent<HTMLFormElement>) => {
    const name = (e.target as HTMLInputElement).name;
    if (name && errors[name]) setErrors((all) => Object.fromEntries(Object.entries(all).filter(([field]) => field !== name)));
  };
  return (
    <form id={form.slug} onSubmit={(e) => void submit(e)} onInput={edited} noValidate className="grid max-w-2xl scroll-mt-20 gap-4" data-testid="crm-form">
      {tr(form.title, lang) ? <h3 className="text-2xl font-semibold">{tr(form.title, lang)}</h3> : null}
      {tr(form.subtitle, lang) ? <p className="-mt-2 text-neutral-600">{tr(form.subtitle, lang)}</p> : null}
      {inputs.map((input) => {
        const name = nameOf(input);
        const id = fieldId(form, name);
        const label = tr(input.label, lang) || tr(input.title, lang) || name;
        const kind = kindOf(input);
        const required = Boolean(input.isRequired);
        const error = errors[name];
        const common = {
          id,
          name,
          placeholder: tr(input.placeholder, lang),
          "aria-invalid": error ? true : undefined,
          "aria-required": required || undefined,
          "aria-describedby": error ? `${id}-error` : undefined,
          className: cn("w-full rounded-xl border border-neutral-300 px-4 py-3 text-base focus:border-emerald-700 focus:outline-none focus:ring-2 focus:ring-emerald-700", input.className as string | undefined),
        };
        return (
          <div key={input.id} className="grid gap-1.5">
            <label htmlFor={id} className="text-sm font-medium">
              {label}
              {required ? <span aria-hidden className="text-red-700"> *</span> : null}
            </label>
            {kind === "textarea" ? <textarea rows={5} {...common} /> : <input type={kind === "number" ? "number" : input.type === "email" ? "email" : "text"} {...common} />}
            {error ? (
              <p id={`${id}-error`} className="text-sm text-red-700">
                {error}
              </p>
            ) : null}
          </div>
        );
      })}
      <Honeypot id={fieldId(form, HONEYPOT)} />
      <button type="submit" disabled={sending || !hydrated} className="h-12 w-fit rounded-full bg-emerald-800 px-8 font-semibold text-white hover:bg-emerald-700 disabled:opacity-60">
        {sending ? t("site.sending") : t("site.submit")}
      </button>
      {done ? (
        <output className="text-emerald-800">{t("site.submitted")}</output>
      ) : null}
    </form>
  );
}

function Forms({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <div className="grid gap-10">
        {linked(data, "widgets-to-forms").map((f) => (
          <CrmForm key={f.id} form={f} lang={lang} />
        ))}
      </div>
    </Block>
  );
}

/** Every declared variant of CRM widgets. */
export const variants = {
  default: Forms,
  "form-list-default": Forms,
} satisfies VariantsOf<"crm">;
