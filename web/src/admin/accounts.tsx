import { useState } from "react";
import { useSearchParams } from "react-router";
import { useEditorT } from "@/admin/editor-i18n";
import { entityClient, inArray, type Row } from "@/api/entities";
import { findEntity, useMeta, valueName } from "@/api/meta";
import { type Column, FilteredList, when } from "./list";
import { EntityFormDialog } from "./table";

const SUBJECTS = "/api/rbac/subjects";

async function all(path: string, column: string, ids: string[]): Promise<Row[]> {
  if (!ids.length) return [];
  return (await entityClient({ path }).list({ page: 0, size: 100, conditions: inArray(column, ids) })).data;
}

/** What the accounts list shows beside each account: how it signs in, its roles, its sessions,
 * its orders, when it was last seen. One request per kind for the whole page. */
export async function accountSummaries(subjects: readonly Row[], now = Date.now()): Promise<Row[]> {
  const ids = subjects.map((s) => s.id);
  const [s2i, s2r, sessions, orders] = await Promise.all([
    all("/api/rbac/subjects-to-identities", "subjectId", ids),
    all("/api/rbac/subjects-to-roles", "subjectId", ids),
    all("/api/rbac/sessions", "subjectId", ids),
    all("/api/rbac/subjects-to-ecommerce-module-orders", "subjectId", ids).catch(() => [] as Row[]),
  ]);
  const [identities, roles] = await Promise.all([all("/api/rbac/identities", "id", [...new Set(s2i.map((l) => String(l.identityId)))]), all("/api/rbac/roles", "id", [...new Set(s2r.map((l) => String(l.roleId)))])]);
  const identityById = new Map(identities.map((i) => [i.id, i]));
  const roleById = new Map(roles.map((r) => [r.id, r]));
  return ids.map((id) => {
    const its = s2i.filter((l) => l.subjectId === id).map((l) => identityById.get(String(l.identityId))).filter((i): i is Row => !!i);
    const live = sessions.filter((x) => x.subjectId === id && !x.revokedAt && Date.parse(String(x.expiresAt)) > now);
    const seen = sessions
      .filter((x) => x.subjectId === id)
      .map((x) => String(x.lastUsedAt ?? x.createdAt ?? ""))
      .filter(Boolean)
      .sort()
      .at(-1);
    return {
      id,
      accountEmail: its.map((i) => i.email).find((e) => typeof e === "string" && e) ?? its.map((i) => i.account).find((a) => typeof a === "string" && a) ?? null,
      providers: [...new Set(its.map((i) => String(i.provider)))],
      roleTitles: s2r.filter((l) => l.subjectId === id).map((l) => String(roleById.get(String(l.roleId))?.title ?? "")).filter(Boolean),
      liveSessions: live.length,
      orderCount: orders.filter((o) => o.subjectId === id).length,
      lastSeen: seen ?? null,
    };
  });
}

/** The accounts: who each is (address or wallet), roles, how they sign in, live sessions, orders,
 * last seen; one opens with everything linked to it. */
export function AccountsView({ lang }: { lang: string }) {
  const t = useEditorT();
  const meta = useMeta();
  // `?edit=<id>` (an order's customer link) opens that account.
  const [params, setParams] = useSearchParams();
  const [open, setOpenState] = useState<string | null>(() => params.get("edit"));
  const setOpen = (id: string | null) => {
    setOpenState(id);
    if (!id && params.has("edit")) {
      params.delete("edit");
      setParams(params, { replace: true });
    }
  };
  const provider = meta.data ? findEntity(meta.data, "rbac.identity")?.fields.find((f) => f.name === "provider") : undefined;
  const subject = meta.data ? findEntity(meta.data, "rbac.subject") : undefined;
  const columns: Column[] = [
    {
      title: t("ed.accounts.account"),
      render: (r) => (
        <button type="button" className="font-medium underline-offset-4 hover:underline" onClick={() => setOpen(r.id)} data-testid="account-open">
          {typeof r.accountEmail === "string" && r.accountEmail ? r.accountEmail : t("ed.accounts.guest")}
        </button>
      ),
    },
    { title: t("ed.accounts.roles"), render: (r) => (Array.isArray(r.roleTitles) && r.roleTitles.length ? r.roleTitles.join(", ") : "—") },
    {
      title: t("ed.accounts.signIn"),
      render: (r) => (Array.isArray(r.providers) && r.providers.length ? r.providers.map((p) => (provider ? valueName(provider, String(p), lang) : String(p))).join(", ") : "—"),
    },
    { title: t("ed.accounts.sessions"), render: (r) => String(r.liveSessions ?? "") },
    { title: t("ed.accounts.orders"), render: (r) => String(r.orderCount ?? "") },
    { title: t("ed.accounts.lastSeen"), render: (r) => when(r.lastSeen, lang) || "—" },
    { title: t("orders.created"), render: (r) => when(r.createdAt, lang) },
  ];
  return (
    <>
      <FilteredList
        path={SUBJECTS}
        title={t("ed.accounts.title")}
        help={t("ed.accounts.help")}
        statuses={[]}
        statusLabel={(s) => s}
        columns={columns}
        testId="accounts-table"
        extra={{ key: "accounts", fetch: (rows) => accountSummaries(rows) }}
      />
      {open && subject && meta.data ? <EntityFormDialog key={open} open onOpenChange={(o) => (o ? undefined : setOpen(null))} entity={subject} meta={meta.data} lang={lang} id={open} /> : null}
    </>
  );
}
