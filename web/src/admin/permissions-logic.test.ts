import { buildTable, decide, moduleOf, operationsOf, parseTemplate, permissionPath, routeKey, shape, templateMatches } from "./permissions-logic";

const perm = (id: string, method: string, path: string, pub = false) => ({ id, method, path, public: pub });
const link = (roleId: string, permissionId: string) => ({ id: `${roleId}-${permissionId}`, roleId, permissionId });

describe("the permission table, by the server's rules (policy.rs)", () => {
  // The server's own test (templates_roles_root_and_public), case by case.
  const t = buildTable(
    [perm("10", "*", "*"), perm("11", "GET", "/api/blog/articles/[blog.articles.id]", true), perm("12", "POST", "/api/rbac/subjects/[rbac.subjects.id]/identities"), perm("13", "GET", "/assets/*", true)],
    [link("admin", "10"), link("user", "12")],
  );
  const kind = (m: string, p: string, roles: string[]) => decide(t, m, p, roles).kind;

  it("matches as the server does", () => {
    expect(kind("DELETE", "/api/x", ["admin"])).toBe("admin");
    expect(kind("GET", "/api/blog/articles/abc", [])).toBe("allow");
    expect(kind("HEAD", "/api/BLOG/articles/abc", [])).toBe("allow");
    expect(kind("GET", "/api/blog/articles", [])).toBe("deny");
    expect(kind("GET", "/api/blog/articles/a/b", [])).toBe("deny");
    expect(kind("POST", "/api/rbac/subjects/s/identities", [])).toBe("deny");
    expect(kind("POST", "/api/rbac/subjects/s/identities", ["user"])).toBe("allow");
    expect(kind("GET", "/assets/a/b.js", [])).toBe("allow");
    expect(kind("GET", "/assets", [])).toBe("allow");
  });

  it("grants nothing through a permission no role holds unless it is public; the root never by public", () => {
    expect(decide(buildTable([perm("1", "*", "*", true)], []), "GET", "/api/x", []).kind).toBe("deny");
    expect(decide(buildTable([perm("2", "GET", "/api/x")], []), "GET", "/api/x", ["user"]).kind).toBe("deny");
    expect(decide(buildTable([perm("2", "GET", "/api/x", true)], []), "GET", "/api/x", []).kind).toBe("allow");
  });

  it("matches any method with `*`, and everything with the path `*`", () => {
    const w = buildTable([perm("1", "*", "/api/blog/*"), perm("2", "GET", "*")], [link("r", "1"), link("g", "2")]);
    expect(decide(w, "PATCH", "/api/blog/articles/1", ["r"]).kind).toBe("allow");
    expect(decide(w, "PATCH", "/api/shop/x", ["r"]).kind).toBe("deny");
    expect(decide(w, "GET", "/anything/at/all", ["g"]).kind).toBe("allow");
    expect(decide(w, "POST", "/anything", ["g"]).kind).toBe("deny");
  });

  it("says why: a held rule, or public", () => {
    const w = buildTable([perm("1", "GET", "/api/x", true), perm("2", "GET", "/api/y")], [link("r", "2")]);
    expect(decide(w, "GET", "/api/x", [])).toEqual({ kind: "allow", public: true, rule: "GET /api/x" });
    expect(decide(w, "GET", "/api/y", ["r"])).toEqual({ kind: "allow", public: false, rule: "GET /api/y" });
  });

  it("treats a route template's {param} as any value, matched only by a dynamic segment or *", () => {
    const segs = parseTemplate("/api/blog/articles/[blog.articles.id]")!;
    expect(templateMatches(segs, "/api/blog/articles/{id}", true)).toBe(true);
    expect(templateMatches(parseTemplate("/api/blog/articles/bulk")!, "/api/blog/articles/{id}", true)).toBe(false);
    expect(templateMatches(parseTemplate("/api/blog/articles/bulk")!, "/api/blog/articles/{id}", false)).toBe(false);
    expect(templateMatches(parseTemplate("/api/blog/*")!, "/api/blog/articles/{id}", true)).toBe(true);
    expect(templateMatches(segs, "/api/blog/articles/", false)).toBe(false);
  });
});

describe("permission paths and keys, as the seed writes them (seed.rs)", () => {
  it("names each dynamic segment after what it identifies", () => {
    expect(permissionPath("/api/blog/articles/{id}")).toBe("/api/blog/articles/[blog.articles.id]");
    expect(permissionPath("/api/rbac/subjects/{id}/identities/{identityId}")).toBe("/api/rbac/subjects/[rbac.subjects.id]/identities/[rbac.identities.id]");
    expect(permissionPath("/api/rbac/subjects/{id}/ecommerce-module/orders/{orderId}")).toBe("/api/rbac/subjects/[rbac.subjects.id]/ecommerce-module/orders/[rbac.orders.id]");
    expect(permissionPath("/api/billing/payment-intents/{id}/{provider}")).toBe("/api/billing/payment-intents/[billing.payment-intents.id]/[billing.payment-intents.provider]");
    expect(permissionPath("/files/{*path}")).toBe("/files/[.files.path]");
    expect(permissionPath("/health")).toBe("/health");
  });

  it("gives a route and its permission row the same key", () => {
    expect(shape("/api/blog/articles/[blog.articles.id]")).toBe(shape("/api/blog/articles/{id}"));
    expect(shape("/api/blog/articles")).not.toBe(shape("/api/blog/articles/{id}"));
    expect(routeKey("get", "/API/Blog/articles/{id}")).toBe(routeKey("GET", "/api/blog/articles/[blog.articles.id]"));
  });

  it("reads every operation of the document with its access, grouped by module", () => {
    const ops = operationsOf({
      paths: {
        "/api/blog/articles": { get: { "x-access": "public", summary: "Find" }, post: { "x-access": "admin" }, parameters: [] },
        "/health": { get: { "x-access": "public" } },
      },
    });
    expect(ops.map((o) => `${o.method} ${o.path} ${o.access} ${o.module}`)).toEqual(["GET /api/blog/articles public blog", "POST /api/blog/articles admin blog", "GET /health public health"]);
    expect(moduleOf("/api")).toBe("api");
    expect(operationsOf(null)).toEqual([]);
  });
});
