import { useQuery } from "@tanstack/react-query";
import { request } from "./http";

export type FieldKind =
  | "uuid"
  | "text"
  | "int"
  | "bool"
  | "decimal"
  | "timestamp"
  | "translations"
  | "rich_text"
  | "json"
  | "enum"
  | "reference";

export interface FieldMeta {
  name: string;
  kind: FieldKind;
  required: boolean;
  default: { type: string; value?: unknown } | null;
  unique: boolean;
  serverOwned: boolean;
  values: string[] | null;
  target: string | null;
  format: "none" | "slug" | "email" | "file";
  maxLength: number | null;
  list: boolean;
  searchable: boolean;
}

export interface EntityMeta {
  module: string;
  name: string;
  route: string;
  path: string;
  kind: "model" | "relation";
  table: string;
  titleField: string | null;
  listColumns: string[];
  variants: string[];
  ops: { create: boolean; update: boolean; delete: boolean; findOrCreate: boolean; bulk: boolean };
  fields: FieldMeta[];
  referencedBy: { module: string; name: string; route: string; field: string }[];
}

export interface Meta {
  languages: string[];
  modules: string[];
  entities: EntityMeta[];
}

export const entityKey = (e: Pick<EntityMeta, "module" | "name">): string => `${e.module}.${e.name}`;

export function useMeta() {
  return useQuery({ queryKey: ["meta"], queryFn: () => request<Meta>("GET", "/api/meta"), staleTime: Infinity });
}

/** Looks an entity up by `module.name`. */
export function findEntity(meta: Meta, key: string): EntityMeta | undefined {
  return meta.entities.find((e) => entityKey(e) === key);
}
