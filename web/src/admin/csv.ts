// CSV export and import of any entity, driven by its declaration in `/api/meta`: one column per
// field (translations, rich text and JSON as JSON text), parsed with papaparse, every row checked
// against the declaration before anything is sent (`chunks.ts` sends them).
import Papa from "papaparse";
import { entityRoute } from "@/api/client";
import { type ListParams, listQuery, type Row } from "@/api/entities";
import type { EntityMeta, FieldMeta } from "@/api/meta";
import { CHUNK } from "./chunks";

/** The columns of an entity's CSV: every declared field, in declaration order. */
export function csvColumns(e: EntityMeta): FieldMeta[] {
  return e.fields;
}

const structured = (f: FieldMeta) => f.kind === "translations" || f.kind === "rich_text" || f.kind === "json";

/** One value as CSV cell text: nothing for null, JSON for objects and JSON fields, else the text. */
export function cellText(f: FieldMeta, v: unknown): string {
  if (v === null || v === undefined) return "";
  if (structured(f) || typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The CSV text of `rows` (a header of field names, CRLF line ends, quoted where needed). */
export function buildCsv(e: EntityMeta, rows: Record<string, unknown>[]): string {
  const cols = csvColumns(e);
  return Papa.unparse(
    { fields: cols.map((c) => c.name), data: rows.map((r) => cols.map((c) => cellText(c, r[c.name]))) },
    { newline: "\r\n" },
  );
}

/** Every row of `e` that the table's `params` select (search, filters, order), page by page. */
export async function fetchAll(e: Pick<EntityMeta, "path">, params: Omit<ListParams, "page" | "size">, onProgress?: (rows: number) => void, signal?: AbortSignal): Promise<Row[]> {
  const out: Row[] = [];
  // Each page starts at the previous page's cursor: any depth costs what the first page does
  // (an offset stops at 10 000 rows).
  let after: string | undefined;
  for (let page = 0; ; page++) {
    // The table's query, without asking the server to count each page again.
    const { count: _count, ...query } = listQuery({ ...params, page, size: CHUNK, after });
    const { data, next } = await entityRoute<Row[]>("GET", e.path, { query, signal });
    out.push(...data);
    onProgress?.(out.length);
    if (data.length < CHUNK) return out;
    after = next;
  }
}

/** Starts a download of `text` as a UTF-8 CSV file (with a byte order mark, for spreadsheets). */
export function downloadCsv(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob(["\uFEFF", text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name of an export: `blog.article-2025-01-31.csv`. */
export function csvFilename(e: Pick<EntityMeta, "module" | "name">, now = new Date()): string {
  return `${e.module}.${e.name}-${now.toISOString().slice(0, 10)}.csv`;
}

export interface ParsedCsv {
  headers: string[];
  rows: string[][];
  /** Problems of the file itself (unbalanced quotes, …), with their row numbers. */
  problems: { row: number; message: string }[];
}

/** Parses CSV text (a byte order mark and blank lines are skipped; the first row is the header). */
export function parseCsv(text: string): ParsedCsv {
  const r = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { header: false, skipEmptyLines: "greedy" });
  const [headers = [], ...rows] = r.data;
  return {
    headers: headers.map((h) => h.trim()),
    rows,
    problems: r.errors.map((e) => ({ row: (e.row ?? 0) + 1, message: e.message })),
  };
}

/** Why a column is not imported. */
export type Ignored = { header: string; why: "unknown" | "server" | "generated" | "duplicate" };

export interface Mapping {
  /** For each column of the file, the field it fills, or null. */
  columns: (FieldMeta | null)[];
  ignored: Ignored[];
  /** Required fields without a default that no column fills. */
  missing: FieldMeta[];
}

export interface ImportOptions {
  /** Leave out unique fields the server generates (slug): the rows come in as copies. */
  regenerate?: boolean;
}

const hasDefault = (f: FieldMeta) => !!f.default && f.default.type !== "none";
/** A unique field whose value the server makes up when none is sent (slug, adminTitle). */
export const regenerable = (f: FieldMeta) => f.unique && hasDefault(f) && !f.serverOwned && f.name !== "id";

/** Maps the file's headers to the entity's fields by name (exact first, then ignoring case). */
export function mapHeaders(e: EntityMeta, headers: string[], opts: ImportOptions = {}): Mapping {
  const byName = new Map(e.fields.map((f) => [f.name, f]));
  const byLower = new Map(e.fields.map((f) => [f.name.toLowerCase(), f]));
  const taken = new Set<string>();
  const ignored: Ignored[] = [];
  const columns = headers.map((h) => {
    const f = byName.get(h) ?? byLower.get(h.toLowerCase());
    if (!f) ignored.push({ header: h, why: "unknown" });
    else if (f.serverOwned || f.name === "id") ignored.push({ header: h, why: "server" });
    else if (opts.regenerate && regenerable(f)) ignored.push({ header: h, why: "generated" });
    else if (taken.has(f.name)) ignored.push({ header: h, why: "duplicate" });
    else {
      taken.add(f.name);
      return f;
    }
    return null;
  });
  const missing = e.fields.filter((f) => f.required && !hasDefault(f) && !f.serverOwned && f.name !== "id" && !taken.has(f.name));
  return { columns, ignored, missing };
}

/** What is wrong with a cell, as a code the screen words (`csv.errors.<code>`). */
export interface CellError {
  field: string;
  code: "required" | "maxLength" | "enum" | "json" | "object" | "int" | "decimal" | "bool" | "date" | "uuid" | "slug" | "email" | "duplicate";
  /** The limit or the allowed values, for the message. */
  detail?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9_-]+$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Cell = { value: unknown } | { omit: true } | { error: CellError };

/** The value of one cell for field `f`, or why it cannot be one. */
export function cellValue(f: FieldMeta, raw: string): Cell {
  const err = (code: CellError["code"], detail?: string): Cell => ({ error: { field: f.name, code, detail } });
  if (raw === "") {
    if (f.required) return hasDefault(f) ? { omit: true } : err("required");
    return { value: null };
  }
  switch (f.kind) {
    case "text":
      if (f.maxLength && [...raw].length > f.maxLength) return err("maxLength", String(f.maxLength));
      if (f.format === "slug" && !SLUG.test(raw)) return err("slug");
      if (f.format === "email" && !EMAIL.test(raw)) return err("email");
      return { value: raw };
    case "enum":
      return f.values && !f.values.includes(raw) ? err("enum", f.values.join(", ")) : { value: raw };
    case "int":
      return /^-?\d+$/.test(raw.trim()) ? { value: Number(raw.trim()) } : err("int");
    case "decimal":
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? { value: raw.trim() } : err("decimal");
    case "bool": {
      const v = raw.trim().toLowerCase();
      if (["true", "1", "yes"].includes(v)) return { value: true };
      if (["false", "0", "no"].includes(v)) return { value: false };
      return err("bool");
    }
    case "timestamp":
      return Number.isNaN(Date.parse(raw)) ? err("date") : { value: raw };
    case "uuid":
    case "reference":
      return UUID.test(raw.trim()) ? { value: raw.trim() } : err("uuid");
    case "translations":
    case "rich_text":
    case "json": {
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch {
        return err("json");
      }
      if (f.kind === "json") return { value: v };
      if (!v || typeof v !== "object" || Array.isArray(v)) return err("object");
      if (f.kind === "translations" && Object.values(v).some((x) => x !== null && typeof x !== "string")) return err("object");
      return { value: v };
    }
  }
}

/** One data row of the file, checked: what would be sent, and what is wrong. */
export interface ImportRow {
  /** The row's number as a spreadsheet shows the file (the header is row 1). */
  row: number;
  data: Record<string, unknown>;
  errors: CellError[];
}

/** Checks every row against the declaration; a unique field's repeated value is an error too. */
export function checkRows(e: EntityMeta, parsed: Pick<ParsedCsv, "headers" | "rows">, opts: ImportOptions = {}): { mapping: Mapping; rows: ImportRow[] } {
  const mapping = mapHeaders(e, parsed.headers, opts);
  const seen = new Map<string, Set<string>>();
  const rows = parsed.rows.map((cells, i) => {
    const data: Record<string, unknown> = {};
    const errors: CellError[] = mapping.missing.map((f) => ({ field: f.name, code: "required" as const }));
    mapping.columns.forEach((f, c) => {
      if (!f) return;
      const r = cellValue(f, cells[c] ?? "");
      if ("error" in r) errors.push(r.error);
      else if ("value" in r) {
        data[f.name] = r.value;
        if (f.unique && typeof r.value === "string") {
          const values = seen.get(f.name) ?? new Set<string>();
          seen.set(f.name, values);
          if (values.has(r.value)) errors.push({ field: f.name, code: "duplicate" });
          values.add(r.value);
        }
      }
    });
    return { row: i + 2, data, errors };
  });
  return { mapping, rows };
}
