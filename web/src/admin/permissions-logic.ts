// The permission table as the server reads it (crates/modules/rbac/src/policy.rs and seed.rs),
// for the roles-and-permissions screen: which permission row stands for which route, and what
// a set of roles may call. Kept free of React so the rules are unit-tested against the server's.

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  /** As the document writes it: `/api/blog/articles/{id}`. */
  path: string;
  /** The route's declared default access (`x-access`): public, signed-in, owner or admin. */
  access: string | null;
  summary: string;
  /** The second path segment (`/api/blog/…` → `blog`), or the first for paths outside `/api`. */
  module: string;
}

export interface PermissionRow {
  id: string;
  method: string;
  path: string;
  public: boolean;
}

export interface LinkRow {
  id: string;
  roleId: string;
  permissionId: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The group of a path: `/api/blog/articles` → `blog`, `/health` → `health`. */
export function moduleOf(path: string): string {
  const segs = path.split("/").filter(Boolean);
  if (segs[0] === "api") return segs[1] ?? "api";
  return segs[0] ?? "/";
}

/** Every operation of an OpenAPI document, in the document's order. */
export function operationsOf(doc: unknown): Operation[] {
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> } | null)?.paths ?? {};
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const m of METHODS) {
      const op = item?.[m] as { "x-access"?: string; summary?: string } | undefined;
      if (!op) continue;
      out.push({ method: m.toUpperCase(), path, access: op["x-access"] ?? null, summary: op.summary ?? "", module: moduleOf(path) });
    }
  }
  return out;
}

/**
 * A route path in the permission table's shape, as the server's seed writes it:
 * `/api/blog/articles/{id}` → `/api/blog/articles/[blog.articles.id]`; `{orderId}` after
 * `orders` → `[module.orders.id]` (a parameter named `…Id` is that thing's id).
 */
export function permissionPath(path: string): string {
  const segs = path.split("/");
  const module = segs[1] === "api" ? (segs[2] ?? "") : "";
  let prev = "";
  return segs
    .map((s) => {
      if (s.startsWith("{") && s.endsWith("}")) {
        const p = s.slice(1, -1).replace(/^\*+/, "");
        const field = p.length > 2 && p.endsWith("Id") ? "id" : p;
        return `[${module}.${prev}.${field}]`;
      }
      prev = s;
      return s;
    })
    .join("/");
}

const dynamic = (s: string) => (s.startsWith("[") && s.endsWith("]")) || (s.startsWith("{") && s.endsWith("}")) || s.startsWith(":");

/** Two templates match the same requests when they agree on every literal segment. */
export function shape(path: string): string {
  return path
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .map((s) => (dynamic(s) ? "·" : s.toLowerCase()))
    .join("/");
}

/** The key of a permission row or a route: method and shape. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${shape(path)}`;
}

export const isRoot = (p: Pick<PermissionRow, "method" | "path">): boolean => p.method === "*" && p.path.trim() === "*";

type Seg = { lit: string } | "param" | "rest";

/** A template's segments; `null` for the path `*` (everything). */
export function parseTemplate(path: string): Seg[] | null {
  if (path.trim() === "*") return null;
  const parts = path.replace(/^\/+|\/+$/g, "").split("/");
  return parts.map((p, i) => {
    if (p === "*" && i + 1 === parts.length) return "rest";
    if ((p.startsWith("[") && p.endsWith("]")) || (p.startsWith("{") && p.endsWith("}")) || p.startsWith(":")) return "param";
    return { lit: p.toLowerCase() };
  });
}

/**
 * Does a template match a request path? A dynamic segment matches one non-empty segment, a
 * final `*` the rest (also nothing), literals compare without case. With `routeParams`, the
 * path is itself a route template: its `{x}` segments stand for any value, so only a dynamic
 * segment (or `*`) of the template matches them.
 */
export function templateMatches(segs: Seg[], path: string, routeParams = false): boolean {
  const parts = path.replace(/^\/+|\/+$/g, "").split("/");
  let i = 0;
  for (const s of segs) {
    if (s === "rest") return true;
    const p = parts[i++];
    if (p === undefined) return false;
    if (s === "param") {
      if (!p) return false;
      continue;
    }
    if (routeParams && p.startsWith("{") && p.endsWith("}")) return false;
    if (p.toLowerCase() !== s.lit) return false;
  }
  return i === parts.length;
}

interface Rule {
  id: string;
  method: string;
  segs: Seg[] | null;
  roles: string[];
  public: boolean;
  path: string;
}

/** A compiled permission table (Table::build). */
export interface Table {
  rules: Rule[];
  rootRoles: Set<string>;
  rootIds: Set<string>;
}

export function buildTable(perms: PermissionRow[], links: LinkRow[]): Table {
  const byPerm = new Map<string, string[]>();
  for (const l of links) byPerm.set(l.permissionId, [...(byPerm.get(l.permissionId) ?? []), l.roleId]);
  const t: Table = { rules: [], rootRoles: new Set(), rootIds: new Set() };
  for (const p of perms) {
    const roles = byPerm.get(p.id) ?? [];
    const segs = parseTemplate(p.path);
    if (p.method === "*" && segs === null) {
      // Only ever its roles' (never public: that would open everything).
      t.rootIds.add(p.id);
      for (const r of roles) t.rootRoles.add(r);
      continue;
    }
    t.rules.push({ id: p.id, method: p.method.toUpperCase(), segs, roles, public: p.public, path: p.path });
  }
  return t;
}

export type Verdict = { kind: "admin" } | { kind: "allow"; public: boolean; rule: string } | { kind: "deny" };

/**
 * What the table says about `method path` for a caller holding `roles` (Table::decide): admin
 * when a role holds the root permission, allowed when a matching rule is public or held by one
 * of the roles. HEAD is read as GET. `routeParams`: `path` is a route template (see
 * `templateMatches`).
 */
export function decide(t: Table, method: string, path: string, roles: readonly string[], routeParams = false): Verdict {
  if (roles.some((r) => t.rootRoles.has(r))) return { kind: "admin" };
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  let held: Verdict | null = null;
  for (const r of t.rules) {
    if (r.method !== "*" && r.method !== m) continue;
    if (r.segs && !templateMatches(r.segs, path, routeParams)) continue;
    if (r.roles.some((x) => roles.includes(x))) {
      held ??= { kind: "allow", public: false, rule: `${r.method} ${r.path}` };
    } else if (r.public) {
      return { kind: "allow", public: true, rule: `${r.method} ${r.path}` };
    }
  }
  return held ?? { kind: "deny" };
}
