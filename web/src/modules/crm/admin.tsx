import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { useEditorT } from "@/admin/editor-i18n";
import { api } from "@/api/client";
import { entityClient, inArray, type Row } from "@/api/entities";
import { ApiError } from "@/api/http";
import { useMeta, valueName } from "@/api/meta";
import { type Column, FilteredList, when } from "@/admin/list";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Input, Label, Textarea } from "@/ui/input";

export const REQUESTS = "/api/crm/requests";
export const REQUEST_STATUSES = ["new", "in_progress", "done"] as const;
const FORMS = "/api/crm/forms";

type Lang = Record<string, string | undefined>;

/** One field of a form, as a submission's answers are read by. */
export interface FormInput {
  id: string;
  slug: string;
  type: string;
  variant?: string;
  label?: Lang | null;
  title?: Lang | null;
}

/** What the payload of a submission holds: the form, the answers by input slug, the signed-in sender. */
export function payloadOf(r: Row): { formId: string | null; values: Record<string, unknown>; subjectId: string | null } {
  const p = (r.payload && typeof r.payload === "object" ? r.payload : {}) as Record<string, unknown>;
  const values = p.values && typeof p.values === "object" ? (p.values as Record<string, unknown>) : {};
  return { formId: typeof p.formId === "string" ? p.formId : null, values, subjectId: typeof p.subjectId === "string" ? p.subjectId : null };
}

/** A translatable text in `lang`, else another language's. */
function inLang(v: Lang | null | undefined, lang: string): string {
  if (!v) return "";
  return v[lang]?.trim() || Object.values(v).find((x) => x?.trim())?.trim() || "";
}

/** What a field asks, in `lang`: its label, else its title, else its short name made readable. */
export function inputLabel(i: FormInput, lang: string): string {
  return inLang(i.label, lang) || inLang(i.title, lang) || i.slug.replace(/[-_]+/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** The first answer of some length: what the list shows of a submission. */
export function excerpt(values: Record<string, unknown>, max = 80): string {
  const texts = Object.values(values).filter((v): v is string => typeof v === "string" && v.trim() !== "" && !v.includes("@"));
  const longest = texts.sort((a, b) => b.length - a.length)[0] ?? "";
  const one = longest.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The answers in the form's order, each with its field (answers of fields since removed last). */
export function answers(inputs: readonly FormInput[], values: Record<string, unknown>): { key: string; input: FormInput | null; value: unknown }[] {
  const known = inputs.filter((i) => i.slug in values).map((i) => ({ key: i.slug, input: i, value: values[i.slug] }));
  const rest = Object.keys(values)
    .filter((k) => !inputs.some((i) => i.slug === k))
    .map((k) => ({ key: k, input: null, value: values[k] }));
  return [...known, ...rest];
}

/** A CSV of submissions: received, form, email, status, then one column per answer. */
export function requestsCsv(rows: readonly Row[], forms: ReadonlyMap<string, string>, labels: ReadonlyMap<string, string>, head: { received: string; form: string; email: string; status: string }, status: (s: string) => string): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(payloadOf(r).values)))];
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
    // A cell a spreadsheet would run as a formula is quoted as text.
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [[head.received, head.form, head.email, head.status, ...keys.map((k) => labels.get(k) ?? k)].map(cell).join(",")];
  for (const r of rows) {
    const p = payloadOf(r);
    lines.push([r.createdAt, p.formId ? (forms.get(p.formId) ?? "") : "", r.email ?? "", status(String(r.status ?? "new")), ...keys.map((k) => p.values[k])].map(cell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Titles of forms by id, in `lang`. */
async function formTitles(ids: readonly string[], lang: string): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const forms = await entityClient({ path: FORMS }).list({ page: 0, size: 100, conditions: inArray("id", unique) });
  return new Map(forms.data.map((f) => [f.id, inLang(f.title as Lang, lang) || String(f.adminTitle ?? "")]));
}

/** The fields of a form, in the form's order. */
async function formInputs(formId: string): Promise<FormInput[]> {
  const links = await entityClient({ path: "/api/crm/forms-to-inputs" }).list({ page: 0, size: 100, filters: { formId }, sort: { field: "orderIndex", desc: false } });
  const ids = links.data.map((l) => String(l.inputId));
  if (!ids.length) return [];
  const inputs = await entityClient({ path: "/api/crm/inputs" }).list({ page: 0, size: 100, conditions: inArray("id", ids) });
  const byId = new Map(inputs.data.map((i) => [i.id, i as unknown as FormInput]));
  return ids.map((id) => byId.get(id)).filter((i): i is FormInput => !!i);
}

/** The words of a submission's status (from the content model). */
function useStatusWords(lang: string): (s: string) => string {
  const meta = useMeta();
  const field = meta.data?.entities.find((e) => e.module === "crm" && e.name === "request")?.fields.find((f) => f.name === "status");
  return (s) => (field ? valueName(field, s, lang) : s);
}

/** Form submissions as an inbox: new, in progress, done; each opened with the form's own fields,
 * a note for the team and an answer by mail; all of them as CSV. */
export function RequestsInbox({ lang }: { lang: string }) {
  const t = useEditorT();
  const status = useStatusWords(lang);
  const [open, setOpen] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const columns: Column[] = [
    {
      title: t("ed.requests.received"),
      render: (r) => (
        <button type="button" className="font-medium underline-offset-4 hover:underline" onClick={() => setOpen(r.id)} data-testid="request-open">
          {when(r.createdAt, lang)}
        </button>
      ),
    },
    { title: t("ed.requests.form"), render: (r) => String(r.formTitle ?? "") || "—" },
    { title: t("ed.requests.sender"), render: (r) => String(r.email ?? "") || "—" },
    { title: t("ed.requests.message"), render: (r) => excerpt(payloadOf(r).values) || "—", className: "max-w-80 truncate py-2 pr-3" },
    { title: t("orders.status"), render: (r) => <span data-testid="request-status">{status(String(r.status ?? "new"))}</span> },
  ];
  async function exportCsv() {
    setExporting(true);
    try {
      const all: Row[] = [];
      for (let page = 0; page < 50; page++) {
        const got = await entityClient({ path: REQUESTS }).list({ page, size: 100, sort: { field: "createdAt", desc: true } });
        all.push(...got.data);
        if (got.data.length < 100) break;
      }
      const forms = await formTitles(all.map((r) => payloadOf(r).formId).filter((x): x is string => !!x), lang);
      const labels = new Map<string, string>();
      for (const formId of new Set(all.map((r) => payloadOf(r).formId).filter((x): x is string => !!x))) {
        for (const i of await formInputs(formId)) if (!labels.has(i.slug)) labels.set(i.slug, inputLabel(i, lang));
      }
      const csv = requestsCsv(all, forms, labels, { received: t("ed.requests.received"), form: t("ed.requests.form"), email: t("ed.requests.sender"), status: t("orders.status") }, status);
      const { downloadCsv } = await import("@/admin/csv");
      downloadCsv(`submissions-${new Date().toISOString().slice(0, 10)}.csv`, csv);
      toast.success(t("ed.requests.exported", { count: all.length }));
    } catch (e) {
      toast.error(e instanceof ApiError ? e.first : t("admin.failed"));
    } finally {
      setExporting(false);
    }
  }
  return (
    <>
      <FilteredList
        path={REQUESTS}
        title={t("ed.requests.title")}
        help={t("ed.requests.help")}
        statuses={REQUEST_STATUSES}
        statusLabel={status}
        columns={columns}
        testId="requests-table"
        search={{ label: t("ed.requests.search"), params: (q) => ({ search: q }) }}
        extra={{
          key: "forms",
          fetch: async (rows) => {
            const titles = await formTitles(rows.map((r) => payloadOf(r).formId).filter((x): x is string => !!x), lang);
            return rows.map((r) => ({ id: r.id, formTitle: titles.get(payloadOf(r).formId ?? "") ?? "" }));
          },
        }}
        actions={
          <Button size="sm" variant="outline" disabled={exporting} onClick={() => void exportCsv()} data-testid="requests-export">
            {exporting ? t("admin.loading") : t("ed.requests.export")}
          </Button>
        }
      />
      <Dialog open={!!open} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? <RequestDetails id={open} lang={lang} /> : null}
      </Dialog>
    </>
  );
}

/** An answer as its field's type shows it: an address to write to, a number to call, lines kept. */
function AnswerValue({ input, value }: { input: FormInput | null; value: unknown }) {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (!text) return <span className="text-neutral-600">—</span>;
  const type = input?.type === "default" && input.variant ? input.variant.replace(/-default$/, "") : input?.type;
  if (type === "email") return <a className="underline underline-offset-4" href={`mailto:${text}`}>{text}</a>;
  if (type === "tel") return <a className="underline underline-offset-4" href={`tel:${text.replace(/[^\d+]/g, "")}`}>{text}</a>;
  if (type === "textarea") return <p className="whitespace-pre-wrap">{text}</p>;
  return <span>{text}</span>;
}

function RequestDetails({ id, lang }: { id: string; lang: string }) {
  const t = useEditorT();
  const qc = useQueryClient();
  const status = useStatusWords(lang);
  const row = useQuery({ queryKey: ["entity", REQUESTS, "one", id], queryFn: () => entityClient({ path: REQUESTS }).one(id) });
  const p = row.data ? payloadOf(row.data) : null;
  const form = useQuery({
    queryKey: ["crm", "form-of", p?.formId],
    enabled: !!p?.formId,
    queryFn: async () => ({ title: (await formTitles([p!.formId!], lang)).get(p!.formId!) ?? "", inputs: await formInputs(p!.formId!) }),
  });
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ["entity", REQUESTS] });
  };
  const patch = useMutation({
    mutationFn: (body: Record<string, unknown>) => entityClient({ path: REQUESTS }).update(id, body),
    onSuccess: () => {
      toast.success(t("admin.saved"));
      refresh();
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : t("admin.failed")),
  });
  const [note, setNote] = useState<string | null>(null);
  const title = form.data?.title ?? "";
  const [subject, setSubject] = useState<string | null>(null);
  const [text, setText] = useState("");
  const reply = useMutation({
    mutationFn: () => api.post("/api/crm/requests/{id}/reply", { params: { path: { id } }, body: { subject: subject ?? t("ed.requests.replySubject", { form: title }), text } }),
    onSuccess: (r) => {
      toast.success(t("ed.requests.sent", { to: r.to }));
      setText("");
      refresh();
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : t("admin.failed")),
  });
  const r = row.data;
  return (
    <DialogContent title={title ? t("ed.requests.titleOf", { form: title }) : t("ed.requests.one")} className="w-[min(48rem,calc(100vw-2rem))]">
      {!r || !p ? (
        <p>{t("admin.loading")}</p>
      ) : (
        <div className="space-y-6 text-sm" data-testid="request-details">
          <p className="text-neutral-700">
            {when(r.createdAt, lang)}
            {r.email ? ` · ${String(r.email)}` : ""}
          </p>
          <section>
            <h3 className="font-semibold">{t("ed.requests.answers")}</h3>
            <dl className="mt-2 grid gap-3 sm:grid-cols-[12rem_1fr]">
              {answers(form.data?.inputs ?? [], p.values).map((a) => (
                <div key={a.key} className="contents" data-testid="request-answer">
                  <dt className="font-medium text-neutral-700">{a.input ? inputLabel(a.input, lang) : a.key.replace(/[-_]+/g, " ")}</dt>
                  <dd>
                    <AnswerValue input={a.input} value={a.value} />
                  </dd>
                </div>
              ))}
            </dl>
          </section>
          <fieldset>
            <legend className="font-semibold">{t("orders.status")}</legend>
            <div className="mt-2 flex flex-wrap gap-2">
              {REQUEST_STATUSES.map((s) => (
                <Button key={s} size="sm" variant={r.status === s ? "default" : "outline"} aria-pressed={r.status === s} disabled={patch.isPending} onClick={() => patch.mutate({ status: s })} data-testid={`request-status-${s}`}>
                  {status(s)}
                </Button>
              ))}
            </div>
          </fieldset>
          <section className="grid gap-2">
            <Label htmlFor={`request-note-${id}`}>{t("ed.requests.note")}</Label>
            <Textarea id={`request-note-${id}`} value={note ?? String(r.note ?? "")} onChange={(e) => setNote(e.target.value)} maxLength={10_000} rows={3} />
            <p className="text-xs text-muted-foreground">{t("ed.requests.noteHelp")}</p>
            <div>
              <Button size="sm" variant="outline" disabled={note === null || patch.isPending} onClick={() => patch.mutate({ note: note?.trim() ? note : null })}>
                {t("ed.requests.saveNote")}
              </Button>
            </div>
          </section>
          <section className="grid gap-2 rounded-lg border border-border p-3">
            <h3 className="font-semibold">{t("ed.requests.reply")}</h3>
            {r.email ? (
              <form
                className="grid gap-2"
                onSubmit={(e) => {
                  e.preventDefault();
                  reply.mutate();
                }}
              >
                <p className="text-neutral-700">{t("ed.requests.replyTo", { to: String(r.email) })}</p>
                <Label htmlFor={`reply-subject-${id}`}>{t("ed.requests.subject")}</Label>
                <Input id={`reply-subject-${id}`} value={subject ?? t("ed.requests.replySubject", { form: title })} onChange={(e) => setSubject(e.target.value)} maxLength={200} required />
                <Label htmlFor={`reply-text-${id}`}>{t("ed.requests.text")}</Label>
                <Textarea id={`reply-text-${id}`} value={text} onChange={(e) => setText(e.target.value)} maxLength={10_000} rows={5} required />
                <div>
                  <Button type="submit" disabled={reply.isPending || !text.trim()} data-testid="request-reply-send">
                    {t("ed.requests.send")}
                  </Button>
                </div>
              </form>
            ) : (
              <p className="text-neutral-700">{t("ed.requests.noAddress")}</p>
            )}
          </section>
        </div>
      )}
    </DialogContent>
  );
}
