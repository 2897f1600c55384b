// The parts the audit log and a record's history share: an entry's field diff, its action badge,
// who wrote it (people resolved to their email in one batch per page), and the list query.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/api/client";
import { findEntity, type Meta } from "@/api/meta";
import type { components } from "@/api/schema";
import { cn } from "@/ui/cn";
import { Button } from "@/ui/button";
import { Badge } from "@/ui/card";
import { type AuditFilter, auditFilters, diffRows, parseActor, redactedFields, truncate } from "./audit-diff";
import { useTrustT } from "./trust-i18n";

export type AuditEntry = components["schemas"]["PlatformAudit"];

export const AUDIT = "/api/platform/audits";
const NEWEST_FIRST = JSON.stringify([{ column: "createdAt", method: "desc" }]);

/** One page of entries matching `filter`, newest first, with the total count. */
export function useAuditPage(filter: AuditFilter, page: number, size: number) {
  const and = auditFilters(filter);
  return useQuery({
    queryKey: ["audit", filter, page, size],
    queryFn: () =>
      api.page(AUDIT, {
        params: { query: { filters: and.length ? JSON.stringify({ and }) : undefined, orderBy: NEWEST_FIRST, limit: size, offset: page * size, count: true } },
      }),
    placeholderData: (prev) => prev,
  });
}

/** Subject id → what names the person (email, else a wallet or Telegram account). */
export type People = ReadonlyMap<string, string>;

/**
 * The people who wrote `entries`, by subject id: the links of those subjects to their identities,
 * then those identities, each fetched once for the whole page (two requests, not one per row).
 */
export function usePeople(ids: readonly string[]): People {
  const unique = [...new Set(ids)].sort();
  const q = useQuery({
    queryKey: ["audit-people", unique],
    enabled: unique.length > 0,
    staleTime: 5 * 60_000,
    queryFn: async (): Promise<People> => {
      const links = await api.get("/api/rbac/subjects-to-identities", {
        params: { query: { filters: JSON.stringify({ and: [{ column: "subjectId", method: "inArray", value: unique }] }), limit: 100 } },
      });
      const identityIds = [...new Set(links.map((l) => l.identityId))];
      if (!identityIds.length) return new Map();
      const identities = await api.get("/api/rbac/identities", {
        params: { query: { filters: JSON.stringify({ and: [{ column: "id", method: "inArray", value: identityIds }] }), limit: 100 } },
      });
      const byId = new Map(identities.map((i) => [i.id, i]));
      const out = new Map<string, string>();
      for (const l of links) {
        const i = byId.get(l.identityId);
        const name = i?.email ?? i?.account;
        // An email names a person better than a wallet address.
        if (name && (!out.has(l.subjectId) || i?.email)) out.set(l.subjectId, name);
      }
      return out;
    },
  });
  return q.data ?? EMPTY;
}
const EMPTY: People = new Map();

/** The subject ids of people among entries' actors. */
export function subjectsOf(entries: readonly AuditEntry[]): string[] {
  return entries.flatMap((e) => {
    const a = parseActor(e.actor);
    return a.kind === "subject" ? [a.id] : e.subjectId ? [e.subjectId] : [];
  });
}

/** Who wrote an entry, in words: a person's email, the secret key, a job, the system. */
export function actorName(actor: string, people: People, t: (k: string, o?: Record<string, unknown>) => string): string {
  const a = parseActor(actor);
  switch (a.kind) {
    case "subject":
      return people.get(a.id) ?? a.id.slice(0, 8);
    case "secret-key":
      return t("trust.audit.secretKey");
    case "job":
      return t("trust.audit.job", { name: a.name });
    case "system":
      return a.raw === "system" ? t("trust.audit.system") : a.raw;
  }
}

const ACTION_TONE: Record<string, string> = {
  create: "border-green-700 bg-green-50 text-green-900",
  update: "border-blue-700 bg-blue-50 text-blue-900",
  delete: "border-red-700 bg-red-50 text-red-900",
  restore: "border-amber-700 bg-amber-50 text-amber-900",
  event: "border-neutral-500 bg-neutral-50 text-neutral-900",
};

export function ActionBadge({ action }: { action: string }) {
  const t = useTrustT();
  return (
    <Badge className={cn(ACTION_TONE[action])} data-action={action}>
      {t(`trust.actions.${action}`, { defaultValue: action })}
    </Badge>
  );
}

/** A value of the diff: cut when long, with a button to show all of it. */
function Value({ text, kind }: { text: string; kind: "before" | "after" }) {
  const t = useTrustT();
  const [open, setOpen] = useState(false);
  if (!text) return <span className="text-neutral-600">{t("trust.diff.empty")}</span>;
  const short = truncate(text);
  const Tag = kind === "before" ? "del" : "ins";
  return (
    <span className="grid justify-items-start gap-1">
      <Tag className={cn("whitespace-pre-wrap break-words rounded px-1 no-underline", kind === "before" ? "bg-red-50 text-red-900" : "bg-green-50 text-green-900")}>
        {open ? text : short.text}
      </Tag>
      {short.cut ? (
        <Button size="sm" variant="link" className="h-auto py-0 text-xs" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? t("trust.diff.less") : t("trust.diff.more")}
        </Button>
      ) : null}
    </span>
  );
}

/** An entry's changes: field (and language), before → after; secret fields as "changed (hidden)". */
export function DiffView({ entry, meta }: { entry: Pick<AuditEntry, "changes" | "redacted" | "entity">; meta: Meta }) {
  const t = useTrustT();
  const declared = findEntity(meta, entry.entity);
  const kindOf = declared ? (field: string) => declared.fields.find((f) => f.name === field)?.kind : undefined;
  const rows = diffRows(entry.changes, meta.languages, kindOf);
  const hidden = redactedFields(entry.redacted);
  if (!rows.length && !hidden.length) return <p className="text-sm text-neutral-700">{t("trust.diff.nothing")}</p>;
  return (
    <table className="w-full table-fixed text-left text-xs" data-testid="audit-diff">
      <caption className="sr-only">{t("trust.diff.caption")}</caption>
      <thead className="text-neutral-700">
        <tr>
          <th scope="col" className="w-1/5 py-1 pr-2 font-medium">
            {t("trust.diff.field")}
          </th>
          <th scope="col" className="py-1 pr-2 font-medium">
            {t("trust.diff.before")}
          </th>
          <th scope="col" className="py-1 font-medium">
            {t("trust.diff.after")}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.field}.${r.lang ?? ""}`} className="border-t border-border align-top" data-field={r.field} data-lang={r.lang}>
            <th scope="row" className="break-words py-1 pr-2 font-mono font-normal">
              {r.field}
              {r.lang ? <Badge className="ml-1 px-1.5 py-0 font-sans">{r.lang}</Badge> : null}
            </th>
            <td className="py-1 pr-2">
              <Value text={r.before} kind="before" />
            </td>
            <td className="py-1">
              <Value text={r.after} kind="after" />
            </td>
          </tr>
        ))}
        {hidden.map((name) => (
          <tr key={`secret.${name}`} className="border-t border-border" data-field={name} data-redacted>
            <th scope="row" className="py-1 pr-2 font-mono font-normal">
              {name}
            </th>
            <td colSpan={2} className="py-1 italic text-neutral-700">
              {t("trust.diff.hidden")}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
