import { BUILT_IN_ROUTES, builtInScreen } from "./builtin";
import routes from "./built-in-routes.json";

describe("built-in routes", () => {
  it("are one list of paths without a trailing slash (the server looks them up as such)", () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(new Set(routes).size).toBe(routes.length);
    for (const route of routes) expect(route).toMatch(/^\/[^?#]*[^/]$/);
  });

  it("each has its screen, and nothing else has one", () => {
    for (const route of BUILT_IN_ROUTES) expect(builtInScreen(route), route).toBeDefined();
    expect(builtInScreen("/rbac/subjects")).toBeUndefined();
    expect(builtInScreen("/")).toBeUndefined();
  });
});
