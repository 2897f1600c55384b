// Roles and permissions on one screen (`/admin/permissions`): every route of the OpenAPI
// document (grouped by module, folded) against every role, each box a permission row for that
// method and path linked to the role, and a `public` box for the row's flag. A toggle writes or
// deletes those rows (`rbac.permission`, `rbac.roles-to-permissions`) and the server's policy
// reads them at once. Below, what one subject may call: the server's answer (`GET /api/rbac/access`).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useDeferredValue, useId, useMemo, useState } from "react";
import { toast } from "sonner";
import { api, entityRoute } from "@/api/client";
import { moduleName, useMeta } from "@/api/meta";
import { entityClient } from "@/api/entities";
import { ApiError } from "@/api/http";
import type { TFunction } from "@/i18n";
import { useTranslation } from "@/i18n";
import { Button } from "@/ui/button";
import { ConfirmDialog } from "@/ui/dialog";
import { Input } from "@/ui/input";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/ui/tabs";
import { useToolsT } from "./i18n";
import { type Access, isRoot, type LinkRow, type Operation, operationsOf, type PermissionRow, type RouteAccess, routeKey } from "./permissions-logic";

const PAGE = 100;
/** Rows a group shows before "Show more". */
const GROUP_ROWS = 100;

interface Role {
  id: string;
  slug: string;
  title: string;
}

/** Every row of a generic list route, 100 a request. */
async function everyRow<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 0; ; page++) {
    const { data } = await entityClient({ path }).list({ page, size: PAGE });
    out.push(...(data as unknown as T[]));
    if (data.length < PAGE) return out;
  }
}

const ROWS = ["rbac", "permission-rows"] as const;
const ACCESS = ["rbac", "access"] as const;

/** What a subject (its roles) or, with no subject, a visitor may call, as the server decides it. */
async function accessOf(subjectId: string | null): Promise<Access> {
  return api.get("/api/rbac/access", { params: { query: subjectId ? { subjectId } : {} } });
}

interface Rows {
  perms: PermissionRow[];
  links: LinkRow[];
}

function usePermissionData() {
  const ops = useQuery({
    queryKey: ["rbac", "openapi"],
    queryFn: async () => operationsOf((await entityRoute<unknown>("GET", "/api/openapi.json")).data),
    staleTime: Infinity,
  });
  const roles = useQuery({ queryKey: ["rbac", "roles-all"], queryFn: () => everyRow<Role>("/api/rbac/roles") });
  // The visitor's answer names every route's permission path and the root roles.
  const access = useQuery({ queryKey: [...ACCESS, "visitor"], queryFn: () => accessOf(null) });
  const rows = useQuery({
    queryKey: ROWS,
    queryFn: async (): Promise<Rows> => {
      const [perms, links] = await Promise.all([everyRow<PermissionRow>("/api/rbac/permissions"), everyRow<LinkRow>("/api/rbac/roles-to-permissions")]);
      return { perms, links };
    },
  });
  return { ops, roles, rows, access };
}

/** A line of the matrix: a route of the document, or a permission row that matches none. */
interface Line {
  key: string;
  method: string;
  /** The route as the document writes it (or the row's own template). */
  path: string;
  /** The template a new permission row for it gets. */
  template: string;
  access: string | null;
  module: string;
  summary: string;
}

/** The server's answer for each route, by `METHOD path`. */
function byRoute(access: Access): Map<string, RouteAccess> {
  return new Map(access.routes.map((r) => [`${r.method} ${r.path}`, r]));
}

function linesOf(ops: Operation[], routes: Map<string, RouteAccess>, perms: PermissionRow[], otherLabel: string): Line[] {
  const out: Line[] = [];
  const seen = new Set<string>();
  for (const o of ops) {
    const r = routes.get(`${o.method} ${o.path}`);
    const key = r?.key ?? routeKey(o.method, o.path);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, method: o.method, path: o.path, template: r?.permission ?? o.path, access: o.access, module: o.module, summary: o.summary });
  }
  for (const p of perms) {
    const key = routeKey(p.method, p.path);
    if (isRoot(p) || seen.has(key)) continue;
    seen.add(key);
    out.push({ key, method: p.method, path: p.path, template: p.path, access: null, module: otherLabel, summary: "" });
  }
  return out;
}

export default function PermissionsScreen() {
  const tt = useToolsT();
  const { ops, roles, rows, access } = usePermissionData();
  const failed = ops.error ?? roles.error ?? rows.error ?? access.error;
  return (
    <section className="grid gap-4" aria-labelledby="permissions-title">
      <h1 id="permissions-title" className="text-xl font-semibold">
        {tt("perm.title")}
      </h1>
      {failed ? (
        <p role="alert" className="text-sm text-destructive">
          {failed instanceof ApiError ? failed.first : String(failed)}
        </p>
      ) : !ops.data || !roles.data || !rows.data || !access.data ? (
        <p className="text-sm">{tt("perm.loading")}</p>
      ) : (
        <Tabs defaultValue="matrix" className="grid gap-4">
          <TabsList className="w-fit max-w-full flex-wrap">
            <TabsTrigger value="matrix">{tt("perm.matrix")}</TabsTrigger>
            <TabsTrigger value="subject">{tt("perm.subject")}</TabsTrigger>
          </TabsList>
          {/* Both stay mounted (hidden when not chosen): a filter or a picked subject survives a switch. */}
          <TabsContent value="matrix" forceMount className="data-[state=inactive]:hidden">
            <Matrix ops={ops.data} roles={roles.data} rows={rows.data} access={access.data} />
          </TabsContent>
          <TabsContent value="subject" forceMount className="data-[state=inactive]:hidden">
            <SubjectView ops={ops.data} roles={roles.data} />
          </TabsContent>
        </Tabs>
      )}
    </section>
  );
}

/** A group's name in words: its module's (`/api/meta`), or the platform's own routes' (`perm.group`);
 * never the path segment it is keyed by. */
function useGroupName(): (group: string) => string {
  const meta = useMeta();
  const tt = useToolsT();
  const { i18n } = useTranslation();
  return (group) => {
    if (meta.data?.moduleLabels[group]) return moduleName(meta.data, group, i18n.language);
    const id = group.replace(/[^a-z]/g, "");
    if (!id || id !== group.replace(/\./g, "")) return group;
    const key = `perm.group.${id}`;
    const words = tt(key);
    return typeof words === "string" && words !== key ? words : group;
  };
}

/** Groups lines by module (sorted), keeping each group's order. */
function groupsOf(lines: Line[]): [string, Line[]][] {
  const m = new Map<string, Line[]>();
  for (const l of lines) m.set(l.module, [...(m.get(l.module) ?? []), l]);
  return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
}

const matchesFilter = (l: Line, f: string) => !f || `${l.method} ${l.path} ${l.template} ${l.summary}`.toLowerCase().includes(f);

/** Folded groups: open by default while a filter is typed; a click flips one group. */
function useGroupsOpen(filter: string) {
  const [flipped, setFlipped] = useState<{ filter: string; names: Set<string>; all: boolean | null }>({ filter, names: new Set(), all: null });
  const state = flipped.filter === filter ? flipped : { filter, names: new Set<string>(), all: null };
  const base = state.all ?? !!filter;
  return {
    isOpen: (name: string) => base !== state.names.has(name),
    set: (name: string, open: boolean) =>
      setFlipped(() => {
        const names = new Set(state.names);
        if (open !== base) names.add(name);
        else names.delete(name);
        return { ...state, names };
      }),
    all: (open: boolean) => setFlipped({ filter, names: new Set(), all: open }),
  };
}

function Matrix({ ops, roles, rows, access }: { ops: Operation[]; roles: Role[]; rows: Rows; access: Access }) {
  const { t } = useTranslation();
  const tt = useToolsT();
  // Opening a route that changes data to everyone is asked about first.
  const [opening, setOpening] = useState<Line | null>(null);
  const qc = useQueryClient();
  const filterId = useId();
  const [filter, setFilter] = useState("");
  const f = useDeferredValue(filter.trim().toLowerCase());
  // Boxes being saved, shown at once with the value asked for.
  const [pending, setPending] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [status, setStatus] = useState<"" | "saving" | "saved">("");
  const [error, setError] = useState("");
  const other = tt("perm.other");
  const lines = useMemo(() => linesOf(ops, byRoute(access), rows.perms, other), [ops, access, rows.perms, other]);
  const groups = useMemo(() => groupsOf(lines.filter((l) => matchesFilter(l, f))), [lines, f]);
  const open = useGroupsOpen(f);
  const index = useMemo(() => {
    const byKey = new Map<string, PermissionRow[]>();
    for (const p of rows.perms) if (!isRoot(p)) byKey.set(routeKey(p.method, p.path), [...(byKey.get(routeKey(p.method, p.path)) ?? []), p]);
    const byPerm = new Map<string, LinkRow[]>();
    for (const l of rows.links) byPerm.set(l.permissionId, [...(byPerm.get(l.permissionId) ?? []), l]);
    return { byKey, byPerm };
  }, [rows]);
  const rootRoles = useMemo(() => new Set(access.rootRoles), [access]);
  const total = groups.reduce((n, [, ls]) => n + ls.length, 0);

  const permsOf = (key: string) => index.byKey.get(key) ?? [];
  const holds = (key: string, role: string) => permsOf(key).some((p) => (index.byPerm.get(p.id) ?? []).some((l) => l.roleId === role));
  const isPublic = (key: string) => permsOf(key).some((p) => p.public);

  const update = (fn: (r: Rows) => Rows) => qc.setQueryData<Rows>(ROWS, (r) => (r ? fn(r) : r));

  async function ensurePerm(l: Line, makePublic: boolean): Promise<PermissionRow> {
    const have = permsOf(l.key)[0];
    if (have) return have;
    const created = (await api.post("/api/rbac/permissions", { body: { method: l.method as "GET", path: l.template, public: makePublic } })) as PermissionRow;
    update((r) => ({ ...r, perms: [...r.perms, created] }));
    return created;
  }

  async function change(cell: string, want: boolean, work: () => Promise<void>) {
    setPending((p) => new Map(p).set(cell, want));
    setStatus("saving");
    setError("");
    try {
      await work();
      setStatus("saved");
      // What subjects may call changed: the server answers again.
      void qc.invalidateQueries({ queryKey: ACCESS });
    } catch (e) {
      const message = e instanceof ApiError ? e.first : String(e);
      setError(message);
      setStatus("");
      toast.error(message);
      await qc.invalidateQueries({ queryKey: ROWS });
    } finally {
      setPending((p) => {
        const n = new Map(p);
        n.delete(cell);
        return n;
      });
    }
  }

  const toggleRole = (l: Line, role: string, on: boolean) =>
    change(`${l.key}|${role}`, on, async () => {
      if (on) {
        const p = await ensurePerm(l, false);
        const link = (await api.post("/api/rbac/roles-to-permissions", { body: { roleId: role, permissionId: p.id } })) as LinkRow;
        update((r) => ({ ...r, links: [...r.links, link] }));
      } else {
        const ids = new Set(permsOf(l.key).map((p) => p.id));
        for (const link of rows.links.filter((x) => x.roleId === role && ids.has(x.permissionId))) {
          await api.delete("/api/rbac/roles-to-permissions/{id}", { params: { path: { id: link.id } } });
          update((r) => ({ ...r, links: r.links.filter((x) => x.id !== link.id) }));
        }
      }
    });

  const togglePublic = (l: Line, on: boolean) =>
    change(`${l.key}|public`, on, async () => {
      const targets = on ? [await ensurePerm(l, true)] : permsOf(l.key).filter((p) => p.public);
      for (const p of targets) {
        if (p.public === on) continue;
        const saved = (await api.patch("/api/rbac/permissions/{id}", { params: { path: { id: p.id } }, body: { public: on } })) as PermissionRow;
        update((r) => ({ ...r, perms: r.perms.map((x) => (x.id === saved.id ? saved : x)) }));
      }
    });

  return (
    <div className="grid gap-3">
      <p className="text-sm text-neutral-700">{tt("perm.intro")}</p>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={filterId} className="sr-only">
          {tt("perm.filter")}
        </label>
        <Input id={filterId} type="search" placeholder={tt("perm.filter")} value={filter} onChange={(e) => setFilter(e.target.value)} className="max-w-sm" data-shortcut="search" />
        <span className="text-sm text-neutral-700" data-testid="route-count">
          {tt("perm.routes", { count: total })}
        </span>
        <Button size="sm" variant="outline" onClick={() => open.all(true)}>
          {tt("perm.expandAll")}
        </Button>
        <Button size="sm" variant="outline" onClick={() => open.all(false)}>
          {tt("perm.collapseAll")}
        </Button>
        <output className="text-sm" aria-live="polite" data-testid="perm-status">
          {status === "saving" ? tt("perm.saving") : status === "saved" ? tt("perm.saved") : ""}
        </output>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-destructive">
          {error}
        </p>
      ) : null}
      <div className="grid gap-2">
        {groups.map(([module, ls]) => (
          <Group
            key={module}
            module={module}
            lines={ls}
            roles={roles}
            rootRoles={rootRoles}
            open={open.isOpen(module)}
            onOpen={(o) => open.set(module, o)}
            note={module === other ? tt("perm.otherNote") : ""}
            cell={{ holds, isPublic, pending, toggleRole, togglePublic: (l, on) => (on && l.method !== "GET" ? setOpening(l) : void togglePublic(l, on)) }}
          />
        ))}
      </div>
      <ConfirmDialog
        open={!!opening}
        onOpenChange={(o) => (o ? undefined : setOpening(null))}
        title={tt("perm.openWrite", { route: opening ? `${opening.method} ${opening.path}` : "" })}
        cancel={t("admin.cancel")}
        confirm={tt("perm.openConfirm")}
        onConfirm={() => {
          const l = opening;
          setOpening(null);
          if (l) void togglePublic(l, true);
        }}
      />
    </div>
  );
}

interface CellOps {
  holds: (key: string, role: string) => boolean;
  isPublic: (key: string) => boolean;
  pending: ReadonlyMap<string, boolean>;
  toggleRole: (l: Line, role: string, on: boolean) => Promise<void>;
  togglePublic: (l: Line, on: boolean) => void;
}

const box = "size-4 cursor-pointer accent-neutral-900 disabled:cursor-wait";

function Group({ module, lines, roles, rootRoles, open, onOpen, note, cell }: { module: string; lines: Line[]; roles: Role[]; rootRoles: Set<string>; open: boolean; onOpen: (o: boolean) => void; note: string; cell: CellOps }) {
  const tt = useToolsT();
  const groupName = useGroupName();
  const [limit, setLimit] = useState(GROUP_ROWS);
  return (
    <details
      open={open}
      onToggle={(e) => {
        const now = (e.currentTarget as HTMLDetailsElement).open;
        if (now !== open) onOpen(now);
      }}
      className="rounded-md border border-border"
      data-module={module}
    >
      <summary className="cursor-pointer px-3 py-2 text-sm font-medium">
        {groupName(module)} <span className="font-normal text-neutral-700">· {tt("perm.routes", { count: lines.length })}</span>
        {note ? <span className="font-normal text-neutral-700"> · {note}</span> : null}
      </summary>
      {open ? (
        <div className="relative overflow-x-auto border-t border-border">
          <table className="w-full text-sm">
            <caption className="sr-only">{groupName(module)}</caption>
            <thead className="bg-muted text-left">
              <tr>
                <th scope="col" className="px-3 py-2 font-medium">
                  {tt("perm.route")}
                </th>
                <th scope="col" className="px-3 py-2 font-medium">
                  {tt("perm.access")}
                </th>
                <th scope="col" className="px-3 py-2 text-center font-medium">
                  {tt("perm.public")}
                </th>
                {roles.map((r) => (
                  <th key={r.id} scope="col" className="px-3 py-2 text-center font-medium">
                    {r.title}
                    {rootRoles.has(r.id) ? <span className="block text-xs font-normal text-neutral-700">{tt("perm.adminAll")}</span> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {lines.slice(0, limit).map((l) => {
                const route = `${l.method} ${l.path}`;
                return (
                  <tr key={l.key} className="border-t border-border" data-route={route}>
                    <th scope="row" className="px-3 py-1.5 text-left font-normal">
                      <span className="font-mono text-xs">
                        <span className="font-semibold">{l.method}</span> {l.path}
                      </span>
                      {l.summary ? <span className="block text-xs text-neutral-700">{l.summary}</span> : null}
                    </th>
                    <td className="px-3 py-1.5 text-xs">{l.access ?? "—"}</td>
                    <td className="px-3 py-1.5 text-center">
                      <input
                        type="checkbox"
                        className={box}
                        aria-label={tt("perm.publicOf", { route })}
                        checked={cell.pending.get(`${l.key}|public`) ?? cell.isPublic(l.key)}
                        disabled={cell.pending.has(`${l.key}|public`)}
                        onChange={(e) => cell.togglePublic(l, e.target.checked)}
                      />
                    </td>
                    {roles.map((r) =>
                      rootRoles.has(r.id) ? (
                        <td key={r.id} className="px-3 py-1.5 text-center text-neutral-700" title={tt("perm.adminAll")}>
                          ✓<span className="sr-only"> {tt("perm.adminAll")}</span>
                        </td>
                      ) : (
                        <td key={r.id} className="px-3 py-1.5 text-center">
                          <input
                            type="checkbox"
                            className={box}
                            aria-label={tt("perm.roleOf", { role: r.title, route })}
                            checked={cell.pending.get(`${l.key}|${r.id}`) ?? cell.holds(l.key, r.id)}
                            disabled={cell.pending.has(`${l.key}|${r.id}`)}
                            onChange={(e) => void cell.toggleRole(l, r.id, e.target.checked)}
                          />
                        </td>
                      ),
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
          {lines.length > limit ? (
            <div className="border-t border-border p-2">
              <Button size="sm" variant="outline" onClick={() => setLimit((n) => n + GROUP_ROWS)}>
                {tt("perm.more", { count: Math.min(GROUP_ROWS, lines.length - limit) })}
              </Button>
            </div>
          ) : null}
        </div>
      ) : null}
    </details>
  );
}

interface Subject {
  id: string;
  label: string;
  detail: string;
}

type Found = { id: string; slug?: string; adminTitle?: string; email?: string | null };

/** Subjects whose own searchable fields, or an identity's email, match `q`. */
async function findSubjects(q: string): Promise<Subject[]> {
  const [subjects, identities] = await Promise.all([
    entityRoute<Found[]>("GET", "/api/rbac/subjects", { query: { search: q, limit: 10 } }).then((r) => r.data),
    entityRoute<Found[]>("GET", "/api/rbac/identities", { query: { search: q, limit: 10 } }).then((r) => r.data),
  ]);
  const emailOf = new Map<string, string>();
  if (identities.length) {
    const links = await entityRoute<{ subjectId: string; identityId: string }[]>("GET", "/api/rbac/subjects-to-identities", {
      query: { filters: JSON.stringify({ and: [{ column: "identityId", method: "inArray", value: identities.map((i) => i.id) }] }), limit: 100 },
    });
    const byId = new Map(identities.map((i) => [i.id, i.email ?? ""]));
    for (const l of links.data) if (byId.get(l.identityId)) emailOf.set(l.subjectId, byId.get(l.identityId)!);
  }
  const out = new Map<string, Subject>();
  for (const s of subjects) out.set(s.id, { id: s.id, label: emailOf.get(s.id) ?? s.adminTitle ?? s.email ?? s.slug ?? s.id, detail: s.slug ?? "" });
  for (const [id, email] of emailOf) if (!out.has(id)) out.set(id, { id, label: email, detail: id.slice(0, 8) });
  return [...out.values()];
}

function SubjectView({ ops, roles }: { ops: Operation[]; roles: Role[] }) {
  const tt = useToolsT();
  const groupName = useGroupName();
  const searchId = useId();
  const filterId = useId();
  const [q, setQ] = useState("");
  const query = useDeferredValue(q.trim());
  const [subject, setSubject] = useState<Subject | null>(null);
  const [filter, setFilter] = useState("");
  const f = useDeferredValue(filter.trim().toLowerCase());
  const found = useQuery({ queryKey: ["rbac", "find-subject", query], queryFn: () => findSubjects(query), enabled: query.length >= 2 });
  const held = useQuery({
    queryKey: [...ACCESS, subject?.id ?? ""],
    queryFn: () => accessOf(subject && subject.id !== "visitor" ? subject.id : null),
    enabled: !!subject,
  });
  const allowed = useMemo(() => {
    if (!held.data) return null;
    const routes = byRoute(held.data);
    return ops.flatMap((op) => {
      const verdict = routes.get(`${op.method} ${op.path}`);
      return verdict?.allowed ? [{ op, verdict }] : [];
    });
  }, [ops, held.data]);
  const admin = !!held.data?.admin;
  const shown = allowed?.filter(({ op }) => !f || `${op.method} ${op.path} ${op.summary}`.toLowerCase().includes(f)) ?? [];
  const byModule = groupsOf(shown.map(({ op }) => ({ key: routeKey(op.method, op.path), method: op.method, path: op.path, template: op.path, access: op.access, module: op.module, summary: op.summary })));
  const verdictOf = new Map(shown.map(({ op, verdict }) => [`${op.method} ${op.path}`, verdict]));
  const roleName = (id: string) => roles.find((r) => r.id === id)?.title ?? id.slice(0, 8);

  return (
    <div className="grid gap-4">
      <div className="grid max-w-xl gap-2">
        <label htmlFor={searchId} className="text-sm font-medium">
          {tt("perm.search")}
        </label>
        <Input id={searchId} type="search" value={q} onChange={(e) => setQ(e.target.value)} aria-describedby={`${searchId}-help`} />
        <p id={`${searchId}-help`} className="text-xs text-neutral-700">
          {tt("perm.searchHelp")}
        </p>
        <ul className="grid gap-1" aria-label={tt("perm.subject")}>
          <li>
            <Button size="sm" variant={subject?.id === "visitor" ? "default" : "outline"} onClick={() => setSubject({ id: "visitor", label: tt("perm.visitor"), detail: "" })}>
              {tt("perm.visitor")}
            </Button>
          </li>
          {found.data?.map((s) => (
            <li key={s.id}>
              <Button size="sm" variant={subject?.id === s.id ? "default" : "outline"} onClick={() => setSubject(s)} aria-label={`${tt("perm.pick")} ${s.label}`}>
                {s.label}
                {s.detail && s.detail !== s.label ? <span className="font-normal opacity-80">{s.detail}</span> : null}
              </Button>
            </li>
          ))}
          {found.data && !found.data.length ? <li className="text-sm text-neutral-700">{tt("perm.noSubject")}</li> : null}
        </ul>
      </div>
      {subject && held.data ? (
        <section className="grid gap-3" aria-label={subject.label} data-testid="subject-can">
          <h2 className="text-lg font-semibold">{subject.label}</h2>
          <p className="text-sm">
            {tt("perm.roles")}: {held.data.roles.length ? held.data.roles.map(roleName).join(", ") : tt("perm.noRoles")}
          </p>
          {admin ? <p className="text-sm font-medium">{tt("perm.everything")}</p> : null}
          <div className="flex flex-wrap items-center gap-2">
            <label htmlFor={filterId} className="sr-only">
              {tt("perm.filter")}
            </label>
            <Input id={filterId} type="search" placeholder={tt("perm.filter")} value={filter} onChange={(e) => setFilter(e.target.value)} className="max-w-sm" />
            <span className="text-sm font-medium" data-testid="subject-count">
              {tt("perm.may", { count: shown.length })}
            </span>
          </div>
          <div className="grid gap-2">
            {byModule.map(([module, ls]) => (
              <details key={module} className="rounded-md border border-border" open={!!f}>
                <summary className="cursor-pointer px-3 py-2 text-sm font-medium">
                  {groupName(module)} <span className="font-normal text-neutral-700">· {tt("perm.routes", { count: ls.length })}</span>
                </summary>
                <ul className="grid gap-0.5 border-t border-border px-3 py-2 font-mono text-xs">
                  {ls.map((l) => (
                    <li key={l.key}>
                      <span className="font-semibold">{l.method}</span> {l.path} <Why verdict={verdictOf.get(`${l.method} ${l.path}`)} access={l.access} tt={tt} />
                    </li>
                  ))}
                </ul>
              </details>
            ))}
          </div>
        </section>
      ) : null}
    </div>
  );
}

function Why({ verdict, access, tt }: { verdict: RouteAccess | undefined; access: string | null; tt: TFunction }) {
  if (!verdict?.allowed || !verdict.via) return null;
  return (
    <span className="font-sans text-neutral-700">
      — {verdict.public ? tt("perm.viaPublic") : `${tt("perm.via")} ${verdict.via}`}
      {access === "owner" ? ` · ${tt("perm.own")}` : ""}
    </span>
  );
}
