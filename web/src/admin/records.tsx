import { useQueries } from "@tanstack/react-query";
import { Copy } from "lucide-react";
import { type ComponentProps, useCallback, useMemo, useState } from "react";
import { Link, useInRouterContext, useSearchParams } from "react-router";
import { toast } from "sonner";
import { entityRoute } from "@/api/client";
import { keys, type Row } from "@/api/entities";
import { type EntityMeta, entityName, type FieldMeta, findEntity, inPhrase, type Meta } from "@/api/meta";
import { useTranslation } from "@/i18n";
import { Select } from "@/ui/input";
import { useRecordsT } from "./records-i18n";
import { missingTranslations, rowTitle, translatableFields } from "./schema";
import { MissingBadge } from "./widgets/language-tabs";

// Readable records in the generic admin: reference titles looked up once per target entity and
// page, a copy button for ids, and which languages a record lacks.

/** The admin page of a record: its entity's table with the record's form open. */
export function recordHref(target: Pick<EntityMeta, "module" | "name">, id: string): string {
  return `/admin/${target.module}/${target.name}?edit=${encodeURIComponent(id)}`;
}

/** A link inside the admin (a plain link where there is no router, as in unit tests of a widget). */
export function AdminLink({ to, children, ...props }: Omit<ComponentProps<"a">, "href"> & { to: string }) {
  const routed = useInRouterContext();
  return routed ? (
    <Link to={to} {...props}>
      {children}
    </Link>
  ) : (
    <a href={to} {...props}>
      {children}
    </a>
  );
}

/** The `?edit=<id>` of the admin's URL (a record link), and a way to drop it once its form closes. */
export function useEditParam(): [string | null, () => void] {
  const [params, setParams] = useSearchParams();
  const clear = useCallback(
    () =>
      setParams(
        (p) => {
          const next = new URLSearchParams(p);
          next.delete("edit");
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );
  return [params.get("edit"), clear];
}

/** `{and: [{column: "id", method: "inArray", value: ids}]}`: the rows of `ids`, in one request. */
export function byIdsQuery(ids: readonly string[]): Record<string, string | number> {
  return { filters: JSON.stringify({ and: [{ column: "id", method: "inArray", value: ids }] }), limit: ids.length };
}

/** The ids each target entity is referred to by in `rows` (through the reference `columns`), sorted. */
export function referencedIds(meta: Meta, columns: readonly FieldMeta[], rows: readonly Row[]): Map<string, { target: EntityMeta; ids: string[] }> {
  const out = new Map<string, { target: EntityMeta; ids: Set<string> }>();
  for (const c of columns) {
    if (c.kind !== "reference" || !c.target) continue;
    const target = findEntity(meta, c.target);
    if (!target) continue;
    const group = out.get(target.path) ?? { target, ids: new Set<string>() };
    out.set(target.path, group);
    for (const r of rows) {
      const v = r[c.name];
      if (typeof v === "string" && v) group.ids.add(v);
    }
  }
  return new Map([...out].filter(([, g]) => g.ids.size).map(([path, g]) => [path, { target: g.target, ids: [...g.ids].sort() }]));
}

export interface ReferenceTitle {
  target: EntityMeta;
  /** Undefined while the lookup runs (or when it failed, or the record is gone). */
  row: Row | undefined;
}

/**
 * The records the reference columns of a page point at: one request per target entity (an
 * `inArray` filter on id), cached by react-query under the target's key (so a write to the target
 * refreshes it). Gives a lookup of a column's value.
 */
export function useReferenceTitles(meta: Meta, columns: readonly FieldMeta[], rows: readonly Row[]) {
  const groups = useMemo(() => [...referencedIds(meta, columns, rows).values()], [meta, columns, rows]);
  const results = useQueries({
    queries: groups.map(({ target, ids }) => ({
      queryKey: [...keys.all(target.path), "byIds", ids] as const,
      queryFn: ({ signal }: { signal: AbortSignal }) => entityRoute<Row[]>("GET", target.path, { query: byIdsQuery(ids), signal }).then((r) => r.data),
      staleTime: 30_000,
    })),
  });
  const found = new Map<string, Map<string, Row>>();
  groups.forEach(({ target }, i) => found.set(target.path, new Map((results[i]?.data ?? []).map((r) => [r.id, r]))));
  return (field: FieldMeta, id: unknown): ReferenceTitle | undefined => {
    const target = field.target ? findEntity(meta, field.target) : undefined;
    if (!target || typeof id !== "string") return undefined;
    return { target, row: found.get(target.path)?.get(id) };
  };
}

/** A reference in a table: the target's title in the admin's language, linking to its admin page. */
export function ReferenceLink({ value, found, lang }: { value: unknown; found: ReferenceTitle | undefined; lang: string }) {
  if (typeof value !== "string" || !value) return null;
  if (!found) return <span className="font-mono text-xs">{value.slice(0, 8)}</span>;
  const { target, row } = found;
  return (
    <AdminLink to={recordHref(target, value)} title={`${target.module}.${target.name} ${value}`} className="underline-offset-4 hover:underline" data-testid="reference-link">
      {row ? rowTitle(target, row, lang) : <span className="font-mono text-xs">{value.slice(0, 8)}</span>}
    </AdminLink>
  );
}

/** Copies an id (the whole of it), says so in a toast. */
export function CopyId({ id }: { id: string }) {
  const t = useRecordsT();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      toast.success(t("records.idCopied", { id }));
    } catch {
      toast.error(t("records.copyFailed"));
    }
  };
  return (
    <button
      type="button"
      onClick={() => void copy()}
      title={id}
      aria-label={t("records.copyId")}
      data-testid="copy-id"
      className="inline-flex h-7 w-7 cursor-pointer items-center justify-center rounded-md text-neutral-700 hover:bg-muted focus-visible:ring-2 focus-visible:ring-neutral-900 focus-visible:outline-none"
    >
      <Copy aria-hidden className="h-4 w-4" />
    </button>
  );
}

/** "missing ru" for each language some translatable field of the record lacks. */
export function MissingBadges({ entity, row, languages }: { entity: EntityMeta; row: Row; languages: readonly string[] }) {
  const t = useRecordsT();
  const missing = missingTranslations(entity, row, languages);
  return (
    <>
      {Object.entries(missing).map(([lang, fields]) => (
        <MissingBadge key={lang} lang={lang} title={t("records.missingIn", { lang, fields: fields.join(", ") })} />
      ))}
    </>
  );
}

/**
 * Rows lacking `lang` in some translatable field, among loaded rows (rich text, which the
 * server's filters cannot see into).
 */
export function lackingLanguage(entity: EntityMeta, rows: readonly Row[], languages: readonly string[], lang: string): Row[] {
  if (!lang) return [...rows];
  return rows.filter((r) => !!missingTranslations(entity, r, languages)[lang]);
}

/**
 * The server's conditions for "missing `lang`": the entity's translated title (or first
 * translations field) has no `lang` text while another language has some. Expressible when the
 * site has two languages (the other one must be filled); otherwise undefined and the loaded
 * page is narrowed instead.
 */
export function missingConditions(entity: EntityMeta, languages: readonly string[], lang: string) {
  const fields = entity.fields.filter((f) => f.kind === "translations");
  const field = fields.find((f) => f.name === "title") ?? fields[0];
  const others = languages.filter((l) => l !== lang);
  if (!field || others.length !== 1) return undefined;
  return [
    { column: `${field.name}->>${lang}`, method: "isEmpty" },
    { column: `${field.name}->>${others[0]}`, method: "isNotEmpty" },
  ];
}

/** The table's 'missing en' / 'missing ru' filter (only for entities with translatable fields). */
export function useMissingFilter(entity: EntityMeta, languages: readonly string[]) {
  const t = useRecordsT();
  const [lang, setLang] = useState("");
  const applies = translatableFields(entity).length > 0;
  const { i18n } = useTranslation();
  const name = inPhrase(entityName(entity, i18n.language, true));
  const control = applies ? (
    <div className="flex items-center gap-2">
      <Select aria-label={`${t("records.translationsFilter")}: ${name}`} className="w-auto" value={lang} onChange={(e) => setLang(e.target.value)} data-testid="missing-filter">
        <option value="">{t("records.allTranslations")}</option>
        {languages.map((l) => (
          <option key={l} value={l}>
            {t("records.missing", { lang: l })}
          </option>
        ))}
      </Select>
      {lang && !missingConditions(entity, languages, lang) ? <span className="text-xs text-neutral-700">{t("records.filteredOnPage")}</span> : null}
    </div>
  ) : null;
  const on = applies ? lang : "";
  const conditions = on ? missingConditions(entity, languages, on) : undefined;
  return {
    lang: on,
    control,
    /** The server conditions of the filter: exact across pages (undefined: none, or page-only). */
    conditions,
    /** Whether the filter keeps `row` (the server's conditions already did, when there are any). */
    keeps: (row: Row) => !on || !!conditions || !!missingTranslations(entity, row, languages)[on],
  };
}
