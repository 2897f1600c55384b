import { useQuery } from "@tanstack/react-query";
import { api } from "./client";
import type { components } from "./schema";

// The shapes of `/api/meta`, generated from the server's OpenAPI schemas (`npm run api:types`):
// a field kind added in Rust changes `FieldKind`, and every exhaustive switch over it stops
// compiling until the admin handles the new kind (`scripts/kind-check.mjs` proves it).
export type Meta = components["schemas"]["Meta"];
export type EntityMeta = components["schemas"]["MetaEntity"];
export type FieldMeta = components["schemas"]["MetaField"];
export type FieldKind = FieldMeta["kind"];

export const entityKey = (e: Pick<EntityMeta, "module" | "name">): string => `${e.module}.${e.name}`;

export function useMeta() {
  return useQuery({ queryKey: ["meta"], queryFn: () => api.get("/api/meta"), staleTime: Infinity });
}

/** Looks an entity up by `module.name`. */
export function findEntity(meta: Meta, key: string): EntityMeta | undefined {
  return meta.entities.find((e) => entityKey(e) === key);
}
