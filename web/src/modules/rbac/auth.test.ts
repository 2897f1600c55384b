import { safeRedirect } from "./auth";

describe("safeRedirect", () => {
  it("follows a path of this site", () => {
    expect(safeRedirect("/ru/rbac/subjects/settings?tab=1")).toBe("/ru/rbac/subjects/settings?tab=1");
  });

  it("refuses what a browser would read as another site (//host, a backslash, a dropped tab or newline)", () => {
    for (const evil of ["//evil.example/", "/\\evil.example", "/\t/evil.example/", "/\n/evil.example", "https://evil.example/", "/\u0000x"]) {
      expect(safeRedirect(evil, "/ru/")).toBe("/ru/");
    }
    expect(safeRedirect(null, "/en/")).toBe("/en/");
  });
});
