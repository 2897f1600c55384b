// Importing an entity's records from a CSV file: the file is read and every row checked against
// `/api/meta` first; a preview shows the rows with their errors; nothing is sent until the admin
// confirms, and then only the valid rows, in chunks of 100 (`chunks.ts`). A summary lists what
// was imported and each row that was not, with why. Loaded on first use (papaparse comes with it).
import { useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { keys } from "@/api/entities";
import type { EntityMeta } from "@/api/meta";
import type { TFunction } from "@/i18n";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Label } from "@/ui/input";
import { bulkCreate, type RowFailure, sendInChunks } from "./chunks";
import { type CellError, checkRows, type ImportRow, type ParsedCsv, parseCsv, regenerable } from "./csv";
import { useToolsT } from "./i18n";

/** How many valid rows the preview shows under the rows with errors. */
const PREVIEW_VALID = 20;
/** The most rows the preview renders at once. */
const PREVIEW_MAX = 200;

/** A file's text as UTF-8 (through FileReader, which every browser and jsdom have). */
function readText(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result ?? ""));
    r.onerror = () => reject(r.error ?? new Error("read failed"));
    r.readAsText(file, "utf-8");
  });
}

export function errorText(tt: TFunction, e: CellError): string {
  return `${e.field} ${tt(`csv.errors.${e.code}`, { detail: e.detail })}`;
}

type Step = { kind: "pick" } | { kind: "preview"; name: string; parsed: ParsedCsv } | { kind: "importing"; done: number; total: number } | { kind: "done"; sent: number; failed: RowFailure[] };

export default function CsvImportDialog({ entity, open, onOpenChange }: { entity: EntityMeta; open: boolean; onOpenChange: (o: boolean) => void }) {
  const tt = useToolsT();
  const name = `${entity.module}.${entity.name}`;
  const [step, setStep] = useState<Step>({ kind: "pick" });
  const [regenerate, setRegenerate] = useState(false);
  const qc = useQueryClient();
  const generated = entity.fields.filter(regenerable);

  async function pick(file: File | undefined) {
    if (!file) return;
    setStep({ kind: "preview", name: file.name, parsed: parseCsv(await readText(file)) });
  }

  async function run(rows: ImportRow[]) {
    const valid = rows.filter((r) => !r.errors.length);
    const skipped: RowFailure[] = rows.filter((r) => r.errors.length).map((r) => ({ row: r.row, message: r.errors.map((e) => errorText(tt, e)).join("; ") }));
    setStep({ kind: "importing", done: 0, total: valid.length });
    try {
      const r = await sendInChunks(
        valid.map((v) => ({ row: v.row, body: v.data })),
        bulkCreate(entity),
        { onProgress: (done, total) => setStep({ kind: "importing", done, total }) },
      );
      setStep({ kind: "done", sent: r.sent, failed: [...skipped, ...r.failed].sort((a, b) => a.row - b.row) });
    } finally {
      await qc.invalidateQueries({ queryKey: keys.all(entity.path) });
    }
  }

  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (step.kind === "importing") return;
        onOpenChange(o);
      }}
    >
      <DialogContent title={tt("csv.importTitle", { name })} className="w-[min(64rem,calc(100vw-2rem))]">
        <div className="grid gap-4 text-sm" data-testid="csv-import">
          {step.kind === "pick" || step.kind === "preview" ? (
            <FilePicker generated={generated.map((f) => f.name)} regenerate={regenerate} setRegenerate={setRegenerate} onPick={(f) => void pick(f)} />
          ) : null}
          {step.kind === "preview" ? <Preview entity={entity} parsed={step.parsed} regenerate={regenerate} onImport={(rows) => void run(rows)} /> : null}
          {step.kind === "importing" ? (
            <div className="grid gap-2">
              <p aria-live="polite">{tt("csv.importing", { done: step.done, total: step.total })}</p>
              <progress className="w-full" max={step.total || 1} value={step.done} aria-label={tt("csv.importing", { done: step.done, total: step.total })} />
            </div>
          ) : null}
          {step.kind === "done" ? (
            <Summary
              sent={step.sent}
              failed={step.failed}
              onAgain={() => setStep({ kind: "pick" })}
              onClose={() => onOpenChange(false)}
            />
          ) : null}
        </div>
      </DialogContent>
    </Dialog>
  );
}

function FilePicker({ generated, regenerate, setRegenerate, onPick }: { generated: string[]; regenerate: boolean; setRegenerate: (r: boolean) => void; onPick: (f: File | undefined) => void }) {
  const tt = useToolsT();
  const id = useId();
  return (
    <div className="grid gap-2">
      <Label htmlFor={`${id}-file`}>{tt("csv.file")}</Label>
      <input
        id={`${id}-file`}
        type="file"
        accept=".csv,text/csv"
        aria-describedby={`${id}-help`}
        className="text-sm file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-border file:bg-white file:px-3 file:py-1.5"
        onChange={(e) => onPick(e.target.files?.[0])}
      />
      <p id={`${id}-help`} className="text-neutral-700">
        {tt("csv.fileHelp")}
      </p>
      {generated.length ? (
        <label className="flex items-start gap-2">
          <input type="checkbox" className="mt-0.5 size-4 accent-neutral-900" checked={regenerate} onChange={(e) => setRegenerate(e.target.checked)} />
          <span>{tt("csv.regenerate", { fields: generated.join(", ") })}</span>
        </label>
      ) : null}
    </div>
  );
}

function Preview({ entity, parsed, regenerate, onImport }: { entity: EntityMeta; parsed: ParsedCsv; regenerate: boolean; onImport: (rows: ImportRow[]) => void }) {
  const tt = useToolsT();
  const [onlyErrors, setOnlyErrors] = useState(false);
  const { mapping, rows } = useMemo(() => checkRows(entity, parsed, { regenerate }), [entity, parsed, regenerate]);
  const bad = rows.filter((r) => r.errors.length);
  const valid = rows.length - bad.length;
  const shown = (onlyErrors ? bad : [...bad, ...rows.filter((r) => !r.errors.length).slice(0, PREVIEW_VALID)]).slice(0, PREVIEW_MAX);
  const cols = mapping.columns.map((f, i) => ({ f, i })).filter((c) => c.f);
  if (!rows.length) return <p role="alert">{tt("csv.empty")}</p>;
  return (
    <div className="grid gap-3">
      <ul className="grid gap-1" data-testid="csv-summary">
        <li>{tt("csv.rows", { count: rows.length })}</li>
        <li className="font-medium" data-testid="csv-valid">
          {tt("csv.valid", { count: valid })}
        </li>
        {bad.length ? (
          <li className="font-medium text-destructive" data-testid="csv-invalid">
            {tt("csv.invalid", { count: bad.length })}
          </li>
        ) : null}
        {mapping.ignored.length ? <li className="text-neutral-700">{tt("csv.ignored", { columns: mapping.ignored.map((g) => `${g.header} (${tt(`csv.why.${g.why}`)})`).join(", ") })}</li> : null}
        {mapping.missing.length ? <li className="text-destructive">{tt("csv.missing", { fields: mapping.missing.map((f) => f.name).join(", ") })}</li> : null}
      </ul>
      {parsed.problems.length ? (
        <div role="alert" className="text-destructive">
          <p>{tt("csv.fileProblems")}</p>
          <ul className="list-disc pl-5">
            {parsed.problems.slice(0, 10).map((p) => (
              <li key={`${p.row}-${p.message}`}>{tt("csv.rowFailed", { row: p.row, message: p.message })}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="flex flex-wrap items-center gap-3">
        <h3 className="font-semibold">{tt("csv.preview")}</h3>
        {bad.length ? (
          <label className="flex items-center gap-2">
            <input type="checkbox" className="size-4 accent-neutral-900" checked={onlyErrors} onChange={(e) => setOnlyErrors(e.target.checked)} />
            {tt("csv.onlyErrors")}
          </label>
        ) : null}
        <span className="text-neutral-700">{tt("csv.previewNote", { count: PREVIEW_VALID })}</span>
      </div>
      {/* oxlint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region with nothing focusable inside is reached by keyboard this way (WCAG 2.1.1; axe's scrollable-region-focusable) */}
      <section tabIndex={0} aria-label={tt("csv.preview")} className="relative max-h-[40vh] overflow-auto rounded-md border border-border focus-visible:ring-2 focus-visible:ring-neutral-900 focus-visible:outline-none">
        <table className="w-full text-xs" data-testid="csv-preview">
          <thead className="sticky top-0 bg-muted text-left">
            <tr>
              <th scope="col" className="px-2 py-1 font-medium">
                {tt("csv.row")}
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                {tt("csv.status")}
              </th>
              {cols.map(({ f }) => (
                <th key={f!.name} scope="col" className="px-2 py-1 font-medium">
                  {f!.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.row} className="border-t border-border align-top" data-invalid={r.errors.length ? "true" : undefined}>
                <th scope="row" className="px-2 py-1 font-mono font-normal">
                  {r.row}
                </th>
                <td className="min-w-48 px-2 py-1">
                  {r.errors.length ? (
                    <ul className="text-destructive">
                      {r.errors.map((e) => (
                        <li key={`${e.field}-${e.code}`}>{errorText(tt, e)}</li>
                      ))}
                    </ul>
                  ) : (
                    <span className="text-success">{tt("csv.ok")}</span>
                  )}
                </td>
                {cols.map(({ f, i }) => (
                  <td key={f!.name} className="max-w-48 truncate px-2 py-1" title={parsed.rows[r.row - 2]?.[i]}>
                    {parsed.rows[r.row - 2]?.[i]}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <div className="flex justify-end">
        <Button disabled={!valid} onClick={() => onImport(rows)} data-testid="csv-confirm">
          {tt("csv.confirm", { count: valid })}
        </Button>
      </div>
    </div>
  );
}

function Summary({ sent, failed, onAgain, onClose }: { sent: number; failed: RowFailure[]; onAgain: () => void; onClose: () => void }) {
  const tt = useToolsT();
  return (
    <section className="grid gap-3" data-testid="csv-result">
      <output className="block font-medium" data-testid="csv-imported">
        {tt("csv.imported", { count: sent })}
      </output>
      {failed.length ? (
        <div role="alert" className="text-destructive">
          <p className="font-medium">{tt("csv.failedRows", { count: failed.length })}</p>
          <ul className="list-disc pl-5" data-testid="csv-failed">
            {failed.map((f) => (
              <li key={f.row}>{tt("csv.rowFailed", { row: f.row, message: f.message })}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button variant="outline" onClick={onAgain}>
          {tt("csv.another")}
        </Button>
        <Button onClick={onClose}>{tt("csv.close")}</Button>
      </div>
    </section>
  );
}
