import type { EntityMeta, FieldMeta } from "@/api/meta";

/**
 * A field as `/api/meta` describes it, with the defaults of a plain optional text field. Like the
 * server, a list column of a scalar kind is sortable (an index leads it).
 */
export function field(name: string, kind: FieldMeta["kind"], extra: Partial<FieldMeta> = {}): FieldMeta {
  const sortable = !!extra.list && !["translations", "json", "rich_text"].includes(kind);
  return { label: null, help: null, valueLabels: null, name, kind, required: false, default: null, unique: false, serverOwned: false, values: null, target: null, format: "none", maxLength: null, list: false, searchable: false, sortable, advanced: false, ...extra };
}

/** A model as `/api/meta` describes it: `module.name` at `/api/{module}/{route}` with `fields`. */
export function entityMeta(module: string, name: string, route: string, fields: FieldMeta[], extra: Partial<EntityMeta> = {}): EntityMeta {
  return {
    label: null,
    labelMany: null,
    group: null,
    rank: null,
    help: null,
    module,
    name,
    route,
    path: `/api/${module}/${route}`,
    kind: "model",
    table: `${module}_${name}`,
    titleField: "adminTitle",
    listColumns: [],
    variants: ["default"],
    ops: { create: true, update: true, delete: true, findOrCreate: true, bulk: true },
    fields,
    referencedBy: [],
    ...extra,
  };
}

/** The fields a publishable entity (drafts, scheduling) carries. */
export function publishingFields(): FieldMeta[] {
  return [field("status", "enum", { values: ["draft", "published", "scheduled"] }), field("publishAt", "timestamp")];
}

/** `file-storage.file` as `/api/meta` describes it, with `fields`. */
export function fileEntity(fields: FieldMeta[]): EntityMeta {
  return {
    label: null,
    labelMany: null,
    group: null,
    rank: null,
    help: null,
    module: "file-storage",
    name: "file",
    route: "files",
    path: "/api/file-storage/files",
    kind: "model",
    table: "file_storage_file",
    titleField: "adminTitle",
    listColumns: ["adminTitle", "file"],
    variants: ["default"],
    ops: { create: true, update: true, delete: true, findOrCreate: false, bulk: false },
    fields,
    referencedBy: [],
  };
}
