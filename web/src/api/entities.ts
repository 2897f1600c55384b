import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { entityRoute, type RouteOptions } from "./client";
import type { EntityMeta } from "./meta";
import { multipartBody, upload, type UploadProgress } from "./upload";

export type Row = Record<string, unknown> & { id: string };

export interface ListParams {
  search?: string;
  sort?: { field: string; desc: boolean } | null;
  page: number;
  size: number;
  /** Keyset paging: the previous page's `next` cursor; the page starts after its last row (any depth, where an offset stops at 10 000). */
  after?: string;
  filters?: Record<string, string>;
  /** Further conditions, any method (`{column: "title->>ru", method: "isEmpty"}`). */
  conditions?: { column: string; method: string; value?: string | string[] }[];
}

/** The condition "`column` is one of `ids`" (one request for a page of rows' related records). */
export function inArray(column: string, ids: string[]): NonNullable<ListParams["conditions"]> {
  return [{ column, method: "inArray", value: ids }];
}

/** Query keys: one factory, so invalidation after a write reaches every list of the entity. */
export const keys = {
  all: (path: string) => ["entity", path] as const,
  list: (path: string, p: ListParams) => ["entity", path, "list", p] as const,
  one: (path: string, id: string) => ["entity", path, "one", id] as const,
};

type Query = NonNullable<RouteOptions["query"]>;

/**
 * The query string of the generic list route for `p`. `filters` and `orderBy` go as JSON (the
 * find routes' documented form; bracket notation is taken too).
 */
export function listQuery(p: ListParams): Query {
  const q: Query = p.after ? { limit: p.size, after: p.after, count: true } : { limit: p.size, offset: p.page * p.size, count: true };
  if (p.search?.trim()) q.search = p.search.trim();
  if (p.sort) q.orderBy = JSON.stringify([{ column: p.sort.field, method: p.sort.desc ? "desc" : "asc" }]);
  const filters: NonNullable<ListParams["conditions"]> = Object.entries(p.filters ?? {}).map(([column, value]) => ({ column, method: "eq", value }));
  filters.push(...(p.conditions ?? []));
  if (filters.length) q.filters = JSON.stringify({ and: filters });
  return q;
}

/** Files to send with a create or update (by field name), and who hears how far the upload got. */
export interface SaveFiles {
  files?: Record<string, File>;
  onProgress?: (p: UploadProgress) => void;
}

/** Sends `body` as JSON, or, with files, as multipart (`data` JSON plus a part per file field). */
function write(method: "POST" | "PATCH", path: string, body: Record<string, unknown>, { files, onProgress }: SaveFiles = {}): Promise<Row> {
  if (files && Object.keys(files).length) return upload<Row>(method, path, multipartBody(body, files), { onProgress });
  return entityRoute<Row>(method, path, { body }).then((r) => r.data);
}

/**
 * The data-provider contract for one entity: list, one, create, update, delete. Its routes come
 * from `/api/meta` at run time, so they go through the client's `entityRoute` (untyped rows).
 */
export function entityClient(e: Pick<EntityMeta, "path">) {
  return {
    list: (p: ListParams, signal?: AbortSignal) => entityRoute<Row[]>("GET", e.path, { query: listQuery(p), signal }),
    one: (id: string) => entityRoute<Row>("GET", `${e.path}/${id}`).then((r) => r.data),
    create: (body: Record<string, unknown>, files?: SaveFiles) => write("POST", e.path, body, files),
    update: (id: string, body: Record<string, unknown>, files?: SaveFiles) => write("PATCH", `${e.path}/${id}`, body, files),
    remove: (id: string) => entityRoute<Row>("DELETE", `${e.path}/${id}`).then((r) => r.data),
  };
}

export function useEntityList(e: EntityMeta, p: ListParams, enabled = true) {
  const c = entityClient(e);
  return useQuery({
    queryKey: keys.list(e.path, p),
    queryFn: ({ signal }) => c.list(p, signal),
    placeholderData: (prev) => prev,
    enabled,
  });
}

export function useEntitySave(e: EntityMeta) {
  const qc = useQueryClient();
  const c = entityClient(e);
  return useMutation({
    mutationFn: ({ id, body, files, onProgress }: { id?: string; body: Record<string, unknown> } & SaveFiles) =>
      id ? c.update(id, body, { files, onProgress }) : c.create(body, { files, onProgress }),
    onSuccess: (row) => {
      // The saved row is the record as it is now (a stored file's new URL): shown before the refetch.
      if (row?.id) qc.setQueryData(keys.one(e.path, row.id), row);
      return qc.invalidateQueries({ queryKey: keys.all(e.path) });
    },
  });
}

export function useEntityDelete(e: EntityMeta) {
  const qc = useQueryClient();
  const c = entityClient(e);
  return useMutation({
    mutationFn: (id: string) => c.remove(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.all(e.path) }),
  });
}
