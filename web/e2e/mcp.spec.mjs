// API keys for AI agents in the admin (issue 51, part 1): an admin makes a key's token (shown
// once), an agent's script uses it, a new token replaces it — through a real browser against a
// real server. The MCP protocol itself is tested with the official SDK client on both databases
// (crates/testkit/tests/api/mcp.rs).
import { ADMIN, expect, pageCall, screen, signIn, watchedContext } from "./harness.mjs";

async function setLanguage(page, lang) {
  await page.evaluate((l) => localStorage.setItem("stoa.admin.language", l), lang);
}

/** A key acting for the signed-in admin with the role `slug`. */
async function makeKey(page, title, slug) {
  const me = await pageCall(page, "GET", "/api/rbac/subjects/authentication/me");
  const key = (await pageCall(page, "POST", "/api/rbac/api-keys", { title, subjectId: me.data.id })).data;
  const roles = await pageCall(page, "GET", `/api/rbac/roles?filters=${encodeURIComponent(JSON.stringify([{ column: "slug", method: "eq", value: slug }]))}`);
  await pageCall(page, "POST", "/api/rbac/api-keys-to-roles", { apiKeyId: key.id, roleId: roles.data[0].id });
  return key;
}

/** GET `path` from outside the browser with `token` (what an agent's script does). */
async function asAgent(stack, token, path) {
  const r = await fetch(`${stack.base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return r.status;
}

export const mcpSpecs = [
  [
    "API keys: an admin makes a key's token once, an agent uses it, a new token replaces it, in en and ru",
    async (stack, s) => {
      s.keys = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
      const { page } = s.keys;
      await signIn(page, ADMIN, "/admin/rbac/api-key");
      await page.waitForURL((u) => u.pathname === "/admin/rbac/api-key");
      const key = await makeKey(page, "Content assistant", "admin");
      await page.goto(`/admin/rbac/api-key?edit=${key.id}`);
      const panel = page.getByTestId("api-key-panel");
      await panel.waitFor();
      await panel.getByText("This key has no token yet").waitFor();
      await page.getByTestId("api-key-make").click();
      const token = await panel.getByTestId("api-key-token").inputValue();
      expect(/^stoa_ak_[A-Za-z0-9]{64}$/.test(token), `a key token: ${token}`);
      await panel.getByText("shown only this once").waitFor();
      // The MCP address to give the agent, read from the page.
      const mcp = await panel.getByLabel("MCP address").inputValue();
      expect(mcp === `${stack.base}/mcp`, `the MCP address: ${mcp}`);
      await screen(page, "api-key-en");
      expect((await asAgent(stack, token, "/api/rbac/subjects?limit=1")) === 200, "the key works for its admin role");
      // The list shows the key's beginning and when it was last used, never the token.
      await page.keyboard.press("Escape");
      const row = page.locator("tr", { hasText: "Content assistant" });
      await row.waitFor();
      const rowText = await row.innerText();
      expect(rowText.includes(token.slice(0, 14)) && !rowText.includes(token), `the beginning only: ${rowText}`);
      await screen(page, "api-keys-en");

      // A new token, after a confirmation; the old one stops working at once.
      await setLanguage(page, "ru");
      await page.goto(`/admin/rbac/api-key?edit=${key.id}`);
      const ru = page.getByTestId("api-key-panel");
      await ru.getByText("Используется ключ, начинающийся с").waitFor();
      await ru.getByRole("button", { name: "Создать новый ключ" }).click();
      await ru.getByText("Текущий ключ сразу перестанет работать").waitFor();
      await screen(page, "api-key-confirm-ru");
      await ru.getByRole("button", { name: "Да, создать новый" }).focus();
      await page.keyboard.press("Enter");
      const second = await ru.getByTestId("api-key-token").inputValue();
      expect(second !== token && second.startsWith("stoa_ak_"), "a new token");
      await screen(page, "api-key-ru");
      expect((await asAgent(stack, token, "/api/rbac/subjects?limit=1")) === 401, "the old token is refused");
      expect((await asAgent(stack, second, "/api/rbac/subjects?limit=1")) === 200, "the new token works");
      // Turned off: refused at once.
      await pageCall(page, "PATCH", `/api/rbac/api-keys/${key.id}`, { isActive: false });
      expect((await asAgent(stack, second, "/api/rbac/subjects?limit=1")) === 401, "a key turned off is refused");
      await setLanguage(page, "en");
    },
  ],
  [
    "API keys: the key's screen fits a phone, in en and ru",
    async (stack, s) => {
      s.keysMobile = await watchedContext(stack, { viewport: { width: 390, height: 844 } });
      const { page } = s.keysMobile;
      await signIn(page, ADMIN, "/admin/rbac/api-key");
      await page.waitForURL((u) => u.pathname === "/admin/rbac/api-key");
      const key = await makeKey(page, "Phone agent", "admin");
      for (const lang of ["en", "ru"]) {
        await setLanguage(page, lang);
        await page.goto(`/admin/rbac/api-key?edit=${key.id}`);
        await page.getByTestId("api-key-panel").waitFor();
        await page.getByTestId("api-key-make").scrollIntoViewIfNeeded();
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
        expect(!wide, `no sideways scroll at 390 px (${lang})`);
        await screen(page, `api-key-390-${lang}`);
      }
      await setLanguage(page, "en");
    },
  ],
];
