import { reply, stubFetch } from "@/test-fetch";
import { accountSummaries } from "./accounts";

describe("the accounts list", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads, for a page at once, each account's address, sign-in methods, roles, live sessions, orders and last visit", async () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    const sent = stubFetch((s) => {
      const path = s.url.split("?")[0];
      const data: Record<string, unknown[]> = {
        "/api/rbac/subjects-to-identities": [
          { subjectId: "s1", identityId: "i1" },
          { subjectId: "s1", identityId: "i2" },
        ],
        "/api/rbac/subjects-to-roles": [{ subjectId: "s1", roleId: "r1" }],
        "/api/rbac/sessions": [
          { subjectId: "s1", expiresAt: "2026-12-01T00:00:00Z", revokedAt: null, lastUsedAt: "2026-11-29T11:00:00Z" },
          { subjectId: "s1", expiresAt: "2026-11-01T00:00:00Z", revokedAt: null, lastUsedAt: "2026-10-01T00:00:00Z" },
          { subjectId: "s1", expiresAt: "2026-12-01T00:00:00Z", revokedAt: "2026-11-28T00:00:00Z", lastUsedAt: "2026-11-28T00:00:00Z" },
        ],
        "/api/rbac/subjects-to-ecommerce-module-orders": [{ subjectId: "s1" }, { subjectId: "s1" }, { subjectId: "s2" }],
        "/api/rbac/identities": [
          { id: "i1", provider: "ethereum_virtual_machine", account: "0xabc", email: null },
          { id: "i2", provider: "email_and_password", email: "ann@example.com" },
        ],
        "/api/rbac/roles": [{ id: "r1", title: "Admin" }],
      };
      return reply(200, { data: data[path!] ?? [] });
    });
    const rows = await accountSummaries([{ id: "s1" }, { id: "s2" }], now);
    expect(rows[0]).toEqual({ id: "s1", accountEmail: "ann@example.com", providers: ["ethereum_virtual_machine", "email_and_password"], roleTitles: ["Admin"], liveSessions: 1, orderCount: 2, lastSeen: "2026-11-29T11:00:00Z" });
    expect(rows[1]).toEqual({ id: "s2", accountEmail: null, providers: [], roleTitles: [], liveSessions: 0, orderCount: 1, lastSeen: null });
    // One request per kind for the page, not per account.
    expect(sent.filter((s) => s.url.startsWith("/api/rbac/sessions"))).toHaveLength(1);
  });
});
