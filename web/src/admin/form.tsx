import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useEffect, useMemo, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { DEFAULT_LANGUAGE, type TFunction, useTranslation } from "@/i18n";
import { entityRoute } from "@/api/client";
import { entityClient, keys, type Row, useEntitySave } from "@/api/entities";
import { ApiError } from "@/api/http";
import { type EntityMeta, entityName, fieldHelp, fieldName, inPhrase, type Meta } from "@/api/meta";
import type { UploadProgress } from "@/api/upload";
import { applyServerErrors } from "@/lib/form-errors";
import { type FormStatus, useFormStatus } from "@/lib/form-status";
import { cn } from "@/ui/cn";
import { Button } from "@/ui/button";
import { Label } from "@/ui/input";
import { recordPanels } from "./panels";
import { useReportDirty } from "./publishing";
import { useRecordsT } from "./records-i18n";
import { freeSlug, isAdvanced, slugFrom, titleText } from "./derive";
import { anyLanguage, editableFields, entitySchema, initialValues, payload, recordValues, serverFieldMessage, UniqueChecker, type Values } from "./schema";
import { FieldWidget } from "./widgets";
import { uploadMessage } from "./widgets/file";

export function StatusButton({ status, idle }: { status: FormStatus; idle: string }) {
  const { t } = useTranslation();
  const label = status === "pending" ? t("admin.loading") : status === "success" ? t("admin.saved") : status === "error" ? t("admin.failed") : idle;
  return (
    <Button
      type="submit"
      data-status={status}
      disabled={status === "pending"}
      variant={status === "success" ? "success" : status === "error" ? "destructive" : "default"}
      className={cn("min-w-28")}
    >
      {label}
    </Button>
  );
}

/** The title of a record's form: "New article" / "Edit article" ("Новая запись: статья"). */
export function formTitle(t: TFunction, e: Pick<EntityMeta, "name" | "label" | "labelMany">, lang: string, editing: boolean): string {
  const name = inPhrase(entityName(e, lang));
  return editing ? t("admin.update", { name }) : t("admin.create", { name });
}

/** Whether another record than `id` holds `value` in the unique field `name` (one row asked for). */
export async function takenElsewhere(entity: Pick<EntityMeta, "path">, id: string | null, name: string, value: string): Promise<boolean> {
  const and: { column: string; method: string; value: string }[] = [{ column: name, method: "eq", value }];
  if (id) and.push({ column: "id", method: "ne", value: id });
  const found = await entityRoute<Row[]>("GET", entity.path, { query: { filters: JSON.stringify({ and }), limit: 1 } });
  return found.data.length > 0;
}

/** Unique fields the form checks as they are typed (a fixed one is not the admin's to change). */
function uniqueFields(e: EntityMeta, fixed: Values): string[] {
  return editableFields(e)
    .filter((f) => f.unique && !(f.name in fixed) && ["text", "int", "enum", "uuid", "reference"].includes(f.kind))
    .map((f) => f.name);
}

export interface FormProps {
  entity: EntityMeta;
  meta: Meta;
  lang: string;
  id: string | null;
  fixed?: Values;
  onSaved?: (id: string) => void;
  /** What follows the form and its panel: the record dialog (`table.tsx`) puts the sub-tables of
   * everything that points at the record here. */
  children?: ReactNode;
  /** Hears every change before it is saved, as the body a save would send (the page builder's
   * preview of unsaved edits). */
  onDraft?: (body: Values) => void;
}

/** The create/update form of any entity; `children` (the sub-tables of everything that points at it) follow it. */
export function EntityForm({ entity, meta, lang, id, fixed = {}, onSaved, children, onDraft }: FormProps) {
  const { t } = useTranslation();
  const rt = useRecordsT();
  const client = entityClient(entity);
  const save = useEntitySave(entity);
  const { status, run } = useFormStatus();
  const record = useQuery({ queryKey: id ? keys.one(entity.path, id) : ["new"], queryFn: () => client.one(id!), enabled: !!id });
  // Unique fields are looked up as they are typed (ignoring this record) and again before a save.
  const checker = useMemo(() => new UniqueChecker((name, value) => takenElsewhere(entity, id, name, value)), [entity, id]);
  useEffect(() => () => checker.cancel(), [checker]);
  // A content entity's title needs a language on create, and cannot be emptied once it has one.
  const requireTitle = !id || anyLanguage(record.data?.title);
  const schema = useMemo(
    () => entitySchema(entity, { t: rt, create: !id, requireTitle, taken: (name, value) => checker.taken(name, value) }),
    [entity, rt, id, requireTitle, checker],
  );
  const [start] = useState(() => initialValues(entity, meta.languages, fixed));
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: id ? undefined : start });
  // Unsaved edits hold back Publish above the form (it reloads the record).
  useReportDirty(form.formState.isDirty);
  useEffect(() => {
    if (record.data) form.reset(recordValues(entity, record.data, meta.languages));
  }, [record.data, entity, meta.languages, form]);
  // A new record's slug follows its title (transliterated) until the editor types one; while it
  // does, it is not checked as it changes (the save takes the first free one).
  const slugField = !id && !("slug" in fixed) ? entity.fields.find((f) => f.name === "slug" && f.format === "slug" && !f.serverOwned) : undefined;
  const [slugEdited, setSlugEdited] = useState(false);
  const autoSlug = slugField && !slugEdited ? slugField.name : null;
  useEffect(() => {
    if (!onDraft) return undefined;
    return form.subscribe({ formState: { values: true }, callback: ({ values }) => onDraft(payload(entity, values)) });
  }, [form, onDraft, entity]);
  const [uniques] = useState(() => uniqueFields(entity, fixed));
  useEffect(() => {
    if (!uniques.length) return undefined;
    return form.subscribe({
      name: uniques,
      exact: true,
      formState: { values: true },
      callback: ({ values, name }) => {
        if (!name || !uniques.includes(name) || name === autoSlug) return;
        checker.schedule(name, values[name], (taken) => {
          // Said at once when taken; a message of an earlier value is rechecked away.
          if (taken || form.getFieldState(name).error) void form.trigger(name);
        });
      },
    });
  }, [form, checker, uniques, autoSlug]);
  // The address is made from the title in the site's language; the admin name from the admin's.
  const slugLanguages = useMemo(() => [DEFAULT_LANGUAGE, ...meta.languages], [meta.languages]);
  useEffect(() => {
    if (!slugField || slugEdited) return undefined;
    return form.subscribe({
      name: ["title"],
      formState: { values: true },
      callback: ({ values }) => {
        const slug = slugFrom(titleText(values, slugLanguages), slugField.maxLength);
        if (form.getValues(slugField.name) !== slug) form.setValue(slugField.name, slug, { shouldDirty: true });
      },
    });
  }, [form, slugField, slugEdited, slugLanguages]);
  const fields = editableFields(entity);
  const mainFields = fields.filter((f) => !isAdvanced(f));
  const advancedFields = fields.filter(isAdvanced);
  const advancedError = advancedFields.some((f) => form.formState.errors[f.name]);
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const Panel = recordPanels[`${entity.module}.${entity.name}`];
  // A record the site keeps as it happened (a delivery, a status change): shown, not edited.
  const readOnly = !!id && !entity.ops.update;
  // Files picked in file fields, sent with the next save (as multipart) and dropped once saved.
  const [files, setFiles] = useState<Record<string, File>>({});
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const pickFile = (name: string, f: File | null) => {
    form.clearErrors(name);
    setFiles((all) => {
      const next = { ...all };
      if (f) next[name] = f;
      else delete next[name];
      return next;
    });
  };
  // A field is named in messages by its words, never its key.
  const fieldLabel = (name: string) => {
    const f = entity.fields.find((x) => x.name === name);
    return f ? fieldName(f, lang) : name;
  };
  const firstError =
    form.formState.errors.root?.server?.message ??
    Object.entries(form.formState.errors)
      .filter(([k]) => k !== "root")
      .map(([k, v]) => `${fieldLabel(k)}: ${(v as { message?: string })?.message ?? ""}`)[0];
  const submit = form.handleSubmit(
    async (values) => {
      const sending = Object.keys(files);
      try {
        const saved = await run(() =>
          save.mutateAsync({
            id: id ?? undefined,
            body: payload(entity, values),
            files,
            onProgress: sending.length ? setProgress : undefined,
          }),
        );
        if (saved && sending.length) {
          // The server put the stored files' URLs (and what it learnt of them) in the record.
          setFiles({});
          form.reset(recordValues(entity, saved, meta.languages));
        }
        if (saved) onSaved?.(saved.id);
      } catch (e) {
        let message = applyServerErrors(
          e,
          form.setError,
          fields.map((f) => f.name),
        );
        // The server's field messages (422, or 409 on a unique field) in the words of the form's own checks.
        if (e instanceof ApiError) {
          const said = Object.entries(e.fields)
            .map(([path, messages]) => [path.split(".")[0] ?? path, messages[0]] as const)
            .filter((x): x is readonly [string, string] => !!x[1] && fields.some((f) => f.name === x[0]))
            .map(([name, m]) => [name, serverFieldMessage(m, rt)] as const);
          for (const [name, m] of said) form.setError(name, { type: "server", message: m });
          // A unique value the server found taken stays refused while it is the field's value.
          if (e.status === 409) for (const [name] of said) if (uniques.includes(name)) checker.remember(name, values[name], true);
          if (said[0]) {
            message = `${fieldLabel(said[0][0])}: ${said[0][1]}`;
            form.setError("root.server", { type: "server", message });
          }
        }
        // Too large, a refused type or a dropped connection: said in words, at the file's field too.
        if (sending.length && e instanceof ApiError && [0, 413, 415].includes(e.status)) {
          const said = uploadMessage(e, t);
          for (const name of sending) form.setError(name, { type: "server", message: said });
          if (said !== message) form.setError("root.server", { type: "server", message: said });
        }
      } finally {
        setProgress(null);
      }
    },
    () => void run(() => Promise.reject(new Error("invalid"))).catch(() => undefined),
  );
  async function onSubmit(ev: FormEvent) {
    ev.preventDefault();
    // A slug made from the title takes the first free one of slug, slug-2, slug-3, … .
    if (slugField && !slugEdited) {
      const base = slugFrom(titleText(form.getValues(), slugLanguages), slugField.maxLength);
      const slug = base ? await freeSlug(base, (s) => checker.check(slugField.name, s), slugField.maxLength) : "";
      form.setValue(slugField.name, slug, { shouldDirty: true });
    }
    // An admin name left empty is the title as the admin reads it.
    const adminTitle = !id ? entity.fields.find((f) => f.name === "adminTitle" && f.kind === "text" && !(f.name in fixed)) : undefined;
    if (adminTitle && !String(form.getValues(adminTitle.name) ?? "").trim()) {
      const title = titleText(form.getValues(), [lang, ...meta.languages]).slice(0, adminTitle.maxLength ?? 500).trim();
      if (title) form.setValue(adminTitle.name, title, { shouldDirty: true });
    }
    // Unique values not yet looked up (typed and saved at once) are asked about before the checks run.
    const values = form.getValues();
    await Promise.all(uniques.filter((n) => !record.data || values[n] !== record.data[n]).map((n) => checker.check(n, values[n])));
    await submit();
  }
  const renderField = (f: (typeof fields)[number]) => {
    const fid = `field-${entity.module}-${entity.name}-${f.name}`;
    const locked = f.name in fixed || readOnly;
    const err = form.formState.errors[f.name]?.message as string | undefined;
    return (
      <div key={f.name} className="grid gap-1.5" data-field={f.name}>
        <div className="flex gap-1">
          <Label htmlFor={fid}>{fieldName(f, lang)}</Label>
          {f.required ? (
            <span aria-hidden className="text-sm text-destructive">
              *
            </span>
          ) : null}
        </div>
        <Controller
          control={form.control}
          name={f.name}
          render={({ field }) => (
            <FieldWidget
              id={fid}
              field={f}
              value={field.value}
              onChange={(v: unknown) => {
                if (f.name === slugField?.name) setSlugEdited(true);
                field.onChange(v);
              }}
              meta={meta}
              lang={lang}
              disabled={locked}
              invalid={!!err}
              file={files[f.name] ?? null}
              onFile={(file) => pickFile(f.name, file)}
              progress={files[f.name] ? progress : null}
            />
          )}
        />
        {fieldHelp(f, lang) ? (
          <p className="text-xs text-muted-foreground" data-testid="field-help">
            {fieldHelp(f, lang)}
          </p>
        ) : null}
        {err ? <p className="text-sm text-destructive">{err}</p> : null}
      </div>
    );
  };
  if (id && record.isPending) return <p className="text-sm">{t("admin.loading")}</p>;
  return (
    <div className="grid gap-6">
      <form onSubmit={(ev) => void onSubmit(ev)} className="grid gap-4" noValidate aria-label={formTitle(t, entity, lang, !!id)}>
        {mainFields.map(renderField)}
        {advancedFields.length ? (
          <details
            className="rounded-lg border border-border p-3"
            open={advancedOpen || advancedError}
            onToggle={(e) => setAdvancedOpen((e.currentTarget as HTMLDetailsElement).open)}
            data-testid="advanced-fields"
          >
            <summary className="cursor-pointer text-sm font-semibold">{t("admin.advanced")}</summary>
            <div className="mt-3 grid gap-4">{advancedFields.map(renderField)}</div>
          </details>
        ) : null}
        {readOnly ? (
          <p className="text-sm text-muted-foreground" data-testid="form-read-only">
            {rt("records.readOnly")}
          </p>
        ) : (
          <div className="sticky bottom-0 flex items-center gap-3 border-t border-border bg-white pt-3">
            <StatusButton status={status} idle={id ? t("admin.updateButton") : t("admin.createButton")} />
            {firstError && status !== "pending" ? (
              <p role="alert" className="text-sm text-destructive" data-testid="form-error">
                {firstError}
              </p>
            ) : null}
          </div>
        )}
      </form>
      {id && Panel ? <Panel id={id} lang={lang} /> : null}
      {children}
    </div>
  );
}
