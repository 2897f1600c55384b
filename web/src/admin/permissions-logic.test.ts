import { moduleOf, operationsOf, routeKey, shape } from "./permissions-logic";

describe("routes and permission rows, matched by method and shape (seed.rs)", () => {
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
