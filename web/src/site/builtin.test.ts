import { siteParts } from "@/modules/site";
import { BUILT_IN_ROUTES, builtInRoute, builtInScreen } from "./builtin";
import routes from "./built-in-routes.json";
import { registerSite } from "./slots";

// The modules' screens, registered as the app does (`app.tsx`).
registerSite(...siteParts);

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

  it("a route ending in /* takes one more segment, and only one", () => {
    expect(builtInRoute("/ecommerce/orders/0196a3f0-1c2d-7e00-8000-000000000001")).toBe("/ecommerce/orders/*");
    expect(builtInRoute("/ecommerce/orders")).toBe("/ecommerce/orders");
    expect(builtInRoute("/ecommerce/orders/a/b")).toBeUndefined();
    expect(builtInRoute("/ecommerce/orders/")).toBeUndefined();
    expect(builtInRoute("/rbac/subjects/settings/x")).toBeUndefined();
  });
});
