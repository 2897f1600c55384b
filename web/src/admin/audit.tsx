// The admin's audit log (`/admin/audit`): `platform.audit` newest first, filtered by person,
// entity, action, record and time; each row opens to its field diff. The filters live in the
// URL (`?subject=&actor=&entity=&record=&action=&from=&to=&page=`), so a record's history links
// here and a filtered view can be shared.
import { useQuery } from "@tanstack/react-query";
import { Fragment, useDeferredValue, useId, useState } from "react";
import { useSearchParams } from "react-router";
import { api } from "@/api/client";
import { shortUserAgent } from "@/lib/user-agent";
import { entityKey, findEntity, type Meta, useMeta } from "@/api/meta";
import { Button } from "@/ui/button";
import { Badge } from "@/ui/card";
import { Input, Label, Select } from "@/ui/input";
import { type AuditFilter, isoToLocal, localToIso, parseActor } from "./audit-diff";
import { ActionBadge, actorName, type AuditEntry, DiffView, type People, subjectsOf, useAuditPage, usePeople } from "./audit-parts";
import { when } from "./list";
import { AdminLink, recordHref } from "./records";
import { Pager } from "./pager";
import { useTrustT } from "./trust-i18n";
import type { ViewProps } from "./views";

const PAGE = 20;
const ACTIONS = ["create", "update", "delete", "restore", "event"] as const;
const KEYS = ["subject", "actor", "entity", "record", "action", "from", "to"] as const;

function readFilter(p: URLSearchParams): AuditFilter {
  const f: AuditFilter = {};
  for (const k of KEYS) {
    const v = p.get(k);
    if (v) f[k] = v;
  }
  return f;
}

/** Finds people by email (their identities) and answers the chosen one's subject id. */
function PersonPicker({ subject, people, onPick }: { subject?: string; people: People; onPick: (subject: string | undefined) => void }) {
  const t = useTrustT();
  const id = useId();
  const [text, setText] = useState("");
  const typed = useDeferredValue(text.trim());
  const found = useQuery({
    queryKey: ["audit-person-search", typed],
    enabled: typed.length >= 2 && !subject,
    queryFn: () => api.get("/api/rbac/identities", { params: { query: { search: typed, limit: 8 } } }),
  });
  async function pick(identityId: string) {
    const links = await api.get("/api/rbac/subjects-to-identities", {
      params: { query: { filters: JSON.stringify({ and: [{ column: "identityId", method: "eq", value: identityId }] }), limit: 1 } },
    });
    setText("");
    onPick(links[0]?.subjectId);
  }
  if (subject) {
    const name = people.get(subject) ?? subject.slice(0, 8);
    return (
      <div className="grid gap-1.5">
        <span className="text-sm font-medium">{t("trust.audit.person")}</span>
        <span className="flex items-center gap-2">
          <Badge data-testid="audit-person">{name}</Badge>
          <Button size="sm" variant="ghost" aria-label={t("trust.audit.removeFilter", { name })} onClick={() => onPick(undefined)}>
            ✕
          </Button>
        </span>
      </div>
    );
  }
  const options = typed.length >= 2 ? (found.data ?? []) : [];
  return (
    <div className="relative grid gap-1.5">
      <Label htmlFor={id}>{t("trust.audit.person")}</Label>
      <Input id={id} type="search" autoComplete="off" placeholder={t("trust.audit.personHelp")} value={text} onChange={(e) => setText(e.target.value)} />
      {typed.length >= 2 && found.isSuccess ? (
        <ul aria-label={t("trust.audit.person")} className="absolute top-full z-10 mt-1 w-full rounded-md border border-border bg-white p-1 shadow-md">
          {options.length === 0 ? <li className="px-2 py-1 text-sm text-neutral-700">{t("trust.audit.personNone")}</li> : null}
          {options.map((i) => (
            <li key={i.id}>
              <button type="button" className="w-full rounded px-2 py-1 text-left text-sm hover:bg-muted focus-visible:bg-muted" onClick={() => void pick(i.id)}>
                {i.email ?? i.account ?? i.login}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function EntryRow({ entry, meta, people, lang, onActor }: { entry: AuditEntry; meta: Meta; people: People; lang: string; onActor: (actor: string) => void }) {
  const t = useTrustT();
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const target = findEntity(meta, entry.entity);
  const who = actorName(entry.actor, people, t);
  const name = entry.summary || entry.recordId?.slice(0, 8) || entry.entity;
  const what = target && entry.recordId && entry.action !== "delete" ? (
    <AdminLink to={recordHref(target, entry.recordId)} className="underline-offset-4 hover:underline">
      {name}
    </AdminLink>
  ) : (
    <span>{name}</span>
  );
  return (
    <Fragment>
      <tr className="border-t border-border align-top" data-testid="audit-entry" data-entry={entry.id} data-action={entry.action}>
        <td className="whitespace-nowrap py-2 pr-3">{when(entry.createdAt, lang)}</td>
        <td className="py-2 pr-3">
          <button type="button" className="min-w-32 break-words text-left underline-offset-4 hover:underline" title={t("trust.audit.onlyThis", { name: who })} onClick={() => onActor(entry.actor)}>
            {who}
          </button>
        </td>
        <td className="py-2 pr-3">
          <ActionBadge action={entry.action} />
        </td>
        <td className="py-2 pr-3">
          <span className="block font-mono text-xs text-neutral-700">{entry.entity}</span>
          {what}
        </td>
        <td className="py-2 pr-3 font-mono text-xs">{entry.ip ?? ""}</td>
        <td className="py-2 text-right">
          <Button size="sm" variant="outline" aria-expanded={open} aria-controls={detailsId} aria-label={open ? t("trust.audit.hide", { name }) : t("trust.audit.show", { name })} onClick={() => setOpen((o) => !o)}>
            {open ? "−" : "+"}
          </Button>
        </td>
      </tr>
      <tr id={detailsId} hidden={!open} className="bg-neutral-50">
        {open ? (
          <td colSpan={6} className="px-3 py-3">
            <DiffView entry={entry} meta={meta} />
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs text-neutral-700">
              {entry.userAgent ? (
                <>
                  <dt>{t("trust.audit.userAgent")}</dt>
                  <dd title={entry.userAgent}>{shortUserAgent(entry.userAgent)}</dd>
                </>
              ) : null}
              {entry.requestId ? (
                <>
                  <dt>{t("trust.audit.requestId")}</dt>
                  <dd className="font-mono">{entry.requestId}</dd>
                </>
              ) : null}
            </dl>
          </td>
        ) : null}
      </tr>
    </Fragment>
  );
}

export default function AuditScreen({ lang }: ViewProps) {
  const t = useTrustT();
  const meta = useMeta();
  const heading = useId();
  const [params, setParams] = useSearchParams();
  const filter = readFilter(params);
  const page = Math.max(0, Number(params.get("page")) || 0);
  const list = useAuditPage(filter, page, PAGE);
  const rows = list.data?.data ?? [];
  const people = usePeople([...subjectsOf(rows), ...(filter.subject ? [filter.subject] : [])]);
  const total = list.data?.total ?? null;
  const pages = total === null ? null : Math.max(1, Math.ceil(total / PAGE));

  function set(changes: Partial<Record<(typeof KEYS)[number] | "page", string | undefined>>) {
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        for (const [k, v] of Object.entries(changes)) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        if (!("page" in changes)) next.delete("page");
        return next;
      },
      { replace: true },
    );
  }

  function filterByActor(actor: string) {
    const a = parseActor(actor);
    if (a.kind === "subject") set({ subject: a.id, actor: undefined });
    else set({ actor, subject: undefined });
  }

  const entities = (meta.data?.entities ?? []).map(entityKey).sort();
  const ids = { entity: useId(), action: useId(), from: useId(), to: useId() };
  const actorChip = filter.actor ? actorName(filter.actor, people, t) : null;
  return (
    <section aria-labelledby={heading} className="grid gap-4" data-testid="audit-log">
      <div>
        <h1 id={heading} className="text-xl font-semibold">
          {t("trust.audit.title")}
        </h1>
        <p className="mt-1 text-sm text-neutral-700">{t("trust.audit.help")}</p>
      </div>
      <form aria-label={t("trust.audit.filters")} className="grid grid-cols-[repeat(auto-fill,minmax(13rem,1fr))] gap-3" onSubmit={(e) => e.preventDefault()}>
        <PersonPicker subject={filter.subject} people={people} onPick={(subject) => set({ subject, actor: undefined })} />
        <div className="grid gap-1.5">
          <Label htmlFor={ids.entity}>{t("trust.audit.entity")}</Label>
          <Select id={ids.entity} value={filter.entity ?? ""} onChange={(e) => set({ entity: e.target.value || undefined })}>
            <option value="">{t("trust.audit.anyEntity")}</option>
            {entities.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.action}>{t("trust.audit.action")}</Label>
          <Select id={ids.action} value={filter.action ?? ""} onChange={(e) => set({ action: e.target.value || undefined })}>
            <option value="">{t("trust.audit.anyAction")}</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {t(`trust.actions.${a}`)}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.from}>{t("trust.audit.from")}</Label>
          <Input id={ids.from} type="datetime-local" value={isoToLocal(filter.from)} onChange={(e) => set({ from: localToIso(e.target.value) })} />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor={ids.to}>{t("trust.audit.to")}</Label>
          <Input id={ids.to} type="datetime-local" value={isoToLocal(filter.to)} onChange={(e) => set({ to: localToIso(e.target.value) })} />
        </div>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {filter.record ? (
          <Badge className="gap-1" data-testid="audit-record-filter">
            {t("trust.audit.record")}: <span className="font-mono">{filter.record.slice(0, 8)}</span>
            <button type="button" aria-label={t("trust.audit.removeFilter", { name: t("trust.audit.record") })} className="ml-1" onClick={() => set({ record: undefined })}>
              ✕
            </button>
          </Badge>
        ) : null}
        {actorChip ? (
          <Badge className="gap-1">
            {t("trust.audit.who")}: {actorChip}
            <button type="button" aria-label={t("trust.audit.removeFilter", { name: actorChip })} className="ml-1" onClick={() => set({ actor: undefined })}>
              ✕
            </button>
          </Badge>
        ) : null}
        {KEYS.some((k) => filter[k]) ? (
          <Button size="sm" variant="outline" onClick={() => setParams(new URLSearchParams(), { replace: true })}>
            {t("trust.audit.clear")}
          </Button>
        ) : null}
        <span className="ml-auto text-neutral-700" data-testid="audit-total" aria-live="polite">
          {total === null ? "" : t("trust.audit.entries", { count: total, formatted: new Intl.NumberFormat(lang).format(total) })}
        </span>
      </div>
      <div className="overflow-x-auto rounded-md border border-border">
        <table className="w-full text-left text-sm">
          <thead className="bg-muted text-xs uppercase tracking-wide text-neutral-700">
            <tr>
              <th scope="col" className="px-3 py-2">
                {t("trust.audit.when")}
              </th>
              <th scope="col" className="py-2 pr-3">
                {t("trust.audit.who")}
              </th>
              <th scope="col" className="py-2 pr-3">
                {t("trust.audit.action")}
              </th>
              <th scope="col" className="py-2 pr-3">
                {t("trust.audit.what")}
              </th>
              <th scope="col" className="py-2 pr-3">
                {t("trust.audit.ip")}
              </th>
              <th scope="col" className="py-2 pr-3">
                <span className="sr-only">{t("trust.audit.details")}</span>
              </th>
            </tr>
          </thead>
          <tbody className="[&>tr>td:first-child]:pl-3">
            {meta.data ? rows.map((e) => <EntryRow key={e.id} entry={e} meta={meta.data} people={people} lang={lang} onActor={filterByActor} />) : null}
          </tbody>
        </table>
        {list.isSuccess && rows.length === 0 ? <p className="px-3 py-6 text-center text-sm text-neutral-700">{t("trust.audit.none")}</p> : null}
        {list.isError ? (
          <p role="alert" className="px-3 py-6 text-center text-sm text-destructive">
            {list.error.message}
          </p>
        ) : null}
      </div>
      <Pager label={t("trust.audit.pages")} page={page} pages={pages} more={rows.length >= PAGE} onPage={(p) => set({ page: p ? String(p) : undefined })} />
    </section>
  );
}
