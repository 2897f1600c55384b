import type { components } from "@/api/schema";

// The routes of the OpenAPI document and the permission rows, for the roles-and-permissions
// screen: which rows stand for which route (same method and shape). What a set of roles may call
// is the server's answer (`GET /api/rbac/access`, decided by the table the gate decides with);
// nothing here decides access. Kept free of React so it is unit-tested.

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

/** A route of the API and whether the roles asked about may call it (the server's answer). */
export type RouteAccess = components["schemas"]["RbacRouteAccess"];
export type Access = components["schemas"]["RbacAccess"];
