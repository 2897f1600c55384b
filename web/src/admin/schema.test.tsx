import { render, screen } from "@testing-library/react";
import type { EntityMeta, FieldMeta } from "@/api/meta";
import { StatusButton } from "./form";
import { recordsT } from "./records-i18n";
import { entitySchema, initialValues, payload } from "./schema";

function f(name: string, kind: FieldMeta["kind"], extra: Partial<FieldMeta> = {}): FieldMeta {
  return { label: null, help: null, valueLabels: null, name, kind, required: false, default: null, unique: false, serverOwned: false, values: null, target: null, format: "none", maxLength: null, list: false, searchable: false, sortable: false, advanced: false, ...extra };
}

const article: EntityMeta = {
  label: null,
  labelMany: null,
  group: null,
  rank: null,
  help: null,
  module: "blog",
  name: "article",
  route: "articles",
  path: "/api/blog/articles",
  kind: "model",
  table: "blog_article",
  titleField: "adminTitle",
  listColumns: [],
  variants: ["default", "primary"],
  ops: { create: true, update: true, delete: true, findOrCreate: false, bulk: false },
  fields: [
    f("id", "uuid", { serverOwned: true }),
    f("createdAt", "timestamp", { serverOwned: true }),
    f("variant", "enum", { required: true, values: ["default", "primary"], default: { type: "text", value: "default" } }),
    f("adminTitle", "text", { required: true, default: { type: "randomTitle" } }),
    f("slug", "text", { required: true, unique: true, format: "slug", default: { type: "randomSlug" } }),
    f("className", "text"),
    f("title", "translations", { required: true, default: { type: "json", value: "{}" } }),
    f("description", "rich_text", { default: { type: "emptyDoc" } }),
    f("orderIndex", "int", { required: true, default: { type: "int", value: 0 } }),
  ],
  referencedBy: [],
};

describe("admin form values from the declaration", () => {
  it("starts from the declared defaults; slug and adminTitle empty (made from the title), never random words", () => {
    const v = initialValues(article, ["en", "ru"]);
    expect(Object.keys(v)).not.toContain("id");
    expect(Object.keys(v)).not.toContain("createdAt");
    expect(v.variant).toBe("default");
    expect(v.title).toEqual({});
    expect(v.orderIndex).toBe(0);
    expect(Object.keys(v.description as object)).toEqual(["en", "ru"]);
    expect(v.slug).toBe("");
    expect(v.adminTitle).toBe("");
  });

  it("fixed values (a sub-table's reference) win over defaults", () => {
    expect(initialValues(article, ["en"], { className: "x" }).className).toBe("x");
  });

  it("validates against the field rules and sends empty optional text as null", () => {
    const schema = entitySchema(article);
    const ok = { ...initialValues(article, ["en", "ru"]), slug: "a-slug", adminTitle: "A" };
    expect(schema.safeParse(ok).success).toBe(true);
    expect(schema.safeParse({ ...ok, slug: "Not A Slug" }).success).toBe(false);
    // Empty on a new record: the form makes it from the title, the server the admin title.
    expect(schema.safeParse({ ...ok, slug: "", adminTitle: "" }).success).toBe(true);
    expect(entitySchema(article, { t: recordsT("en"), create: false }).safeParse({ ...ok, slug: "" }).success).toBe(false);
    expect(schema.safeParse({ ...ok, variant: "nope" }).success).toBe(false);
    expect(schema.safeParse({ ...ok, orderIndex: 1.5 }).success).toBe(false);
    expect(payload(article, { ...ok, className: "" }).className).toBeNull();
    expect("adminTitle" in payload(article, { ...ok, adminTitle: "" })).toBe(false);
  });
});

describe("the submit button", () => {
  it("says Loading... while pending, and is green on success and red on error", () => {
    const { rerender } = render(<StatusButton status="idle" idle="Create" />);
    expect(screen.getByRole("button")).toHaveTextContent("Create");
    rerender(<StatusButton status="pending" idle="Create" />);
    expect(screen.getByRole("button")).toHaveTextContent("Loading...");
    expect(screen.getByRole("button")).toBeDisabled();
    rerender(<StatusButton status="success" idle="Create" />);
    expect(screen.getByRole("button").className).toContain("bg-success");
    rerender(<StatusButton status="error" idle="Create" />);
    expect(screen.getByRole("button").className).toContain("bg-destructive");
  });
});
