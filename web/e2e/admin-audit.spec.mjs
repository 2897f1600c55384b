// An admin you can hand to a client (issue 18), through a real browser against a real server:
// a record's history and restore, the audit log, drafts with publish / schedule / preview, two-factor
// sign-in with recovery codes, and the sessions list.
import { createHmac } from "node:crypto";
import { ADMIN, expect, pageCall, screen, signIn, watchedContext } from "./harness.mjs";

const AUTH = "/en/rbac/subject/authentication";
const TOTP_USER = { email: "two-factor@e2e.test", password: "two factor password 123" };

/** Browser problems of the contexts these specs make, reported by the runner. */
export const auditProblems = [];

/** A same-origin API call from the signed-in page: its `data`. */
const call = async (page, method, path, body) => (await pageCall(page, method, path, body))?.data;

const filters = (and) => encodeURIComponent(JSON.stringify({ and }));

/** The admin's own watched page for these specs, signed in (made once). */
async function admin(stack, s) {
  if (!s.audit) {
    s.audit = await watchedContext(stack);
    await signIn(s.audit.page, ADMIN, "/admin");
    await s.audit.page.getByRole("navigation", { name: "Sections" }).waitFor();
  }
  return s.audit;
}

/** Submits the record dialog's form and waits for its status. */
async function save(dialog, label = "success") {
  await dialog.locator("form button[type=submit]").first().click();
  await dialog.locator(`form button[data-status=${label}]`).first().waitFor();
}

// RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits) over an RFC 4648 base32 secret.
function base32(secret) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret.replace(/[\s=]/g, "").toUpperCase()) {
    const v = alphabet.indexOf(c);
    if (v < 0) throw new Error(`not base32: ${c}`);
    bits += v.toString(2).padStart(5, "0");
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}
function totp(secret, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const n = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(n % 1_000_000).padStart(6, "0");
}
const stepNow = () => Math.floor(Date.now() / 1000 / 30);

// The RFC's own test vector (SHA-1, T = 59 s → 94287082, of which the last 6 digits), so the
// code the specs compute is known right before the server is asked.
expect(totp("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 1) === "287082", "RFC 6238 test vector");

/**
 * A code the server takes now: each step is accepted once and ±1 step around the current one,
 * so a step after the last one used, waiting for the clock when that one is not yet in reach.
 */
async function nextCode(state) {
  let step = Math.max(stepNow(), state.lastStep + 1);
  while (step > stepNow() + 1) {
    await new Promise((r) => setTimeout(r, 1000));
    step = Math.max(stepNow(), state.lastStep + 1);
  }
  state.lastStep = step;
  return totp(state.secret, step);
}

async function logout(page) {
  await page.goto("/en/");
  await page.getByTestId("account-menu").click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await page.waitForURL((u) => u.pathname === "/ru");
  await page.getByRole("button", { name: "Войти" }).waitFor();
}

/** The password step, then the code step with `code` (a recovery code when `recovery`). */
async function signInWithCode(page, code, { recovery = false } = {}) {
  await signIn(page, TOTP_USER);
  const step = page.getByRole("form", { name: "Two-step verification" });
  await step.waitFor();
  if (recovery) await step.getByRole("button", { name: "Use a recovery code" }).click();
  await step.getByLabel(recovery ? "Recovery code" : "Code", { exact: true }).fill(code);
  await step.getByRole("button", { name: "Verify" }).click();
  return step;
}

export const auditSpecs = [
  [
    "trust: the admin edits a page twice, restores the first version from its History, and the audit log lists the three changes with their diffs",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const [target] = await call(page, "GET", `/api/host/pages?filters=${filters([{ column: "url", method: "eq", value: "/rbac/subjects" }])}`);
      expect(target, "the demo site has the /rbac/subjects page");
      await page.goto(`/admin/host/page?edit=${target.id}`);
      const dialog = page.getByRole("dialog", { name: "Edit page" });
      const title = dialog.getByLabel("Title", { exact: true });
      await title.fill("Audit first");
      await save(dialog);
      await title.fill("Audit second");
      await save(dialog);
      await dialog.getByTestId("draft-controls").getByTestId("status-badge").getByText("Published").waitFor();
      await screen(page, "admin-record-with-draft-controls");

      await dialog.getByRole("tab", { name: "History" }).click();
      const history = dialog.getByTestId("record-history");
      const entries = history.getByTestId("history-entry");
      await entries.nth(1).waitFor();
      expect((await entries.count()) === 2, `two history entries, got ${await entries.count()}`);
      const newest = entries.nth(0).locator('tr[data-field="title"]');
      expect((await newest.textContent()).includes("Audit first") && (await newest.textContent()).includes("Audit second"), "the newest entry shows Audit first → Audit second");
      await screen(page, "admin-record-history");
      await entries.nth(1).getByRole("button", { name: "Restore this version" }).click();
      const confirm = page.getByRole("alertdialog");
      await confirm.waitFor();
      await screen(page, "admin-restore-confirm");
      await confirm.getByRole("button", { name: "Restore this version" }).click();
      await page.getByText(/^Restored the version of/).waitFor();
      // The form shows the restored record (the Record tab comes back).
      await dialog.getByRole("tab", { name: "Record", selected: true }).waitFor();
      await page.waitForFunction(() => document.querySelector('[role=dialog] [data-field="title"] input')?.value === "Audit first");
      const stored = await call(page, "GET", `/api/host/pages/${target.id}`);
      expect(stored.title === "Audit first", `the title is back to the first version, got ${stored.title}`);
      await page.keyboard.press("Escape");

      // The audit log, through its filters: the page's three entries, newest first, with diffs.
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Audit log" }).click();
      const log = page.getByTestId("audit-log");
      await log.getByTestId("audit-entry").first().waitFor();
      await log.getByLabel("Entity").selectOption("host.page");
      await page.waitForURL((u) => u.searchParams.get("entity") === "host.page");
      await page.goto(`/admin/audit?entity=host.page&record=${target.id}`);
      await log.getByTestId("audit-record-filter").waitFor();
      const rows = log.getByTestId("audit-entry");
      await rows.nth(2).waitFor();
      const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action")));
      expect(JSON.stringify(actions) === JSON.stringify(["restore", "update", "update"]), `restore, update, update — got ${JSON.stringify(actions)}`);
      await log.getByTestId("audit-total").getByText("3 entries").waitFor();
      // People are named by email, not by id.
      await rows.first().getByRole("button", { name: ADMIN.email }).waitFor();
      await rows.first().getByRole("button", { name: /^Show the changes of/ }).click();
      const diff = log.getByTestId("audit-diff").first().locator('tr[data-field="title"]');
      await diff.waitFor();
      const text = await diff.textContent();
      expect(text.includes("Audit second") && text.includes("Audit first"), `the restore's diff is Audit second → Audit first: ${text}`);
      await screen(page, "admin-audit-log");
      // Filtering by the person: their rows only, their email in the filter.
      await rows.first().getByRole("button", { name: ADMIN.email }).click();
      await log.getByTestId("audit-person").getByText(ADMIN.email).waitFor();
      await page.waitForURL((u) => !!u.searchParams.get("subject"));
      await screen(page, "admin-audit-person-filter");
      // Back as it was for the specs after these.
      await call(page, "PATCH", `/api/host/pages/${target.id}`, { title: target.title });
    },
  ],
  [
    "trust: a draft article is hidden from visitors, Preview shows it to the admin, and Publish and Schedule change who sees it",
    async (stack, s) => {
      const { page, context } = await admin(stack, s);
      const article = await call(page, "POST", "/api/blog/articles", { slug: "e2e-draft-article", title: { en: "E2E draft article", ru: "Черновик E2E" }, status: "draft" });
      const anon = await stack.browser.newContext({ baseURL: stack.base });
      const visible = async () => (await (await anon.request.get(`/api/blog/articles?filters=${filters([{ column: "slug", method: "eq", value: "e2e-draft-article" }])}`)).json()).data.length;
      try {
        expect((await visible()) === 0, "a visitor's API does not list the draft");
        const publicPage = await anon.request.get("/ru/blog/articles/e2e-draft-article?preview=1");
        expect(publicPage.status() === 404, `a visitor's preview of the draft is a 404, got ${publicPage.status()}`);
        expect(!(await publicPage.text()).includes("Черновик E2E"), "the visitor's page does not hold the draft");
        const bundle = await (await anon.request.get("/api/host/pages/bundle?url=/blog/articles/e2e-draft-article&preview=true")).json();
        expect(bundle.data === null, "preview=true is ignored for a visitor");

        await page.goto(`/admin/blog/article?edit=${article.id}`);
        const dialog = page.getByRole("dialog", { name: "Edit article" });
        const controls = dialog.getByTestId("draft-controls");
        await controls.getByTestId("status-badge").getByText("Draft").waitFor();
        const preview = controls.getByTestId("preview-link");
        await preview.waitFor();
        const href = await preview.getAttribute("href");
        expect(href === "/en/blog/articles/e2e-draft-article?preview=1", `the preview opens the article's page, got ${href}`);
        await screen(page, "admin-draft-article");
        const [tab] = await Promise.all([context.waitForEvent("page"), preview.click()]);
        await tab.waitForLoadState();
        await tab.getByText("E2E draft article").first().waitFor();
        // The client keeps the draft: its own bundle request asks for the preview too.
        await tab.locator("html[data-hydrated]").waitFor({ state: "attached" });
        const again = await tab.evaluate(async () => (await (await fetch("/api/host/pages/bundle?url=/blog/articles/e2e-draft-article&preview=true")).json()).data?.url);
        expect(again === "/blog/articles/e2e-draft-article", `the admin's preview bundle holds the draft page, got ${again}`);
        await screen(tab, "site-preview-draft");
        await tab.close();

        await controls.getByRole("button", { name: "Publish" }).click();
        await controls.getByTestId("status-badge").getByText("Published").waitFor();
        expect((await visible()) === 1, "published: visitors see it");

        await controls.getByRole("button", { name: "Schedule…" }).click();
        const schedule = page.getByRole("dialog", { name: "Schedule publication" });
        const at = new Date(Date.now() + 2 * 24 * 3600 * 1000);
        const local = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}T10:30`;
        await schedule.getByLabel("Publish at").fill(local);
        await screen(page, "admin-schedule-dialog");
        await schedule.getByRole("button", { name: "Schedule" }).click();
        await controls.locator('[data-testid=status-badge][data-status="scheduled"]').waitFor();
        expect((await visible()) === 0, "scheduled for later: hidden from visitors again");
        const stored = await call(page, "GET", `/api/blog/articles/${article.id}`);
        expect(stored.status === "scheduled" && new Date(stored.publishAt).getTime() === new Date(local).getTime(), `scheduled at ${local}: ${stored.status} ${stored.publishAt}`);
        await page.keyboard.press("Escape");

        // The table shows the status as a badge too.
        await page.getByLabel("Search: articles").fill("e2e-draft-article");
        await page.locator("tr", { hasText: "e2e-draft-article" }).locator('[data-testid=status-badge][data-status="scheduled"]').waitFor();
        await screen(page, "admin-articles-status-badges");
      } finally {
        await anon.close();
      }
    },
  ],
  [
    "trust: two-factor sign-in: enrol with a QR code and a computed code, sign in with a code, then a recovery code once",
    async (stack, s) => {
      const w = await watchedContext(stack);
      s.totp = w;
      const { page } = w;
      await page.goto(`${AUTH}/email-and-password/registration`);
      await page.getByLabel("Email").fill(TOTP_USER.email);
      await page.getByLabel("Password").fill(TOTP_USER.password);
      await page.getByRole("button", { name: "Create an account" }).click();
      await page.getByTestId("account-menu").waitFor();

      await page.goto("/en/rbac/subjects/settings");
      const two = page.getByTestId("two-factor");
      await two.getByTestId("totp-status").getByText("Off").waitFor();
      await page.getByTestId("sessions").getByTestId("session").first().waitFor();
      await screen(page, "account-security");
      await two.getByRole("button", { name: "Turn on" }).click();
      const secret = await two.getByTestId("totp-secret").getAttribute("data-secret");
      await two.getByTestId("totp-qr").waitFor();
      await screen(page, "account-totp-enrol");
      const state = { secret, lastStep: 0 };
      // The owner confirms with the password (a stolen session alone cannot enrol).
      await two.getByLabel("Current password", { exact: true }).fill(TOTP_USER.password);
      // A wrong code first: refused, the enrolment stays.
      w.expectStatus(422);
      const wrong = String((Number(totp(secret, stepNow())) + 500_000) % 1_000_000).padStart(6, "0");
      await two.getByLabel("Code", { exact: true }).fill(wrong);
      await two.getByRole("button", { name: "Confirm" }).click();
      await two.getByText("This code is not right; try again.").waitFor();
      await two.getByLabel("Code", { exact: true }).fill(await nextCode(state));
      await two.getByRole("button", { name: "Confirm" }).click();
      await two.getByTestId("recovery-code").nth(9).waitFor();
      const codes = await two.getByTestId("recovery-code").allTextContents();
      expect(codes.length === 10, `ten recovery codes, got ${codes.length}`);
      await two.getByRole("button", { name: "Download" }).waitFor();
      await screen(page, "account-recovery-codes");
      await two.getByRole("button", { name: "I saved them" }).click();
      await two.getByTestId("recovery-codes").waitFor({ state: "detached" });
      await two.getByTestId("totp-status").getByText("On").waitFor();
      await logout(page);

      // Password, then a wrong code (stays), then the right one.
      const step = await signInWithCode(page, wrong);
      await step.getByText("This code is not right; try again.").waitFor();
      await screen(page, "account-second-factor-step");
      await step.getByLabel("Code", { exact: true }).fill(await nextCode(state));
      await step.getByRole("button", { name: "Verify" }).click();
      await page.getByTestId("account-menu").waitFor();
      const me = await call(page, "GET", "/api/rbac/subjects/authentication/me");
      expect(me.secondFactor?.enabled === true && me.secondFactor?.satisfied === true, `signed in with the second factor: ${JSON.stringify(me.secondFactor)}`);
      await logout(page);

      // A recovery code works once.
      await signInWithCode(page, codes[0], { recovery: true });
      await page.getByTestId("account-menu").waitFor();
      await logout(page);
      const again = await signInWithCode(page, codes[0], { recovery: true });
      await again.getByText("This code is not right; try again.").waitFor();
      await screen(page, "account-recovery-code-used");
      await again.getByLabel("Recovery code", { exact: true }).fill(codes[1].toUpperCase());
      await again.getByRole("button", { name: "Verify" }).click();
      await page.getByTestId("account-menu").waitFor();
      w.clearExpected();
      s.totpCodes = codes.slice(2);
    },
  ],
  [
    "trust: sessions: the account signed in twice signs the other session out from its settings, and that session's next call is a 401",
    async (stack, s) => {
      const { page } = s.totp;
      const other = await watchedContext(stack);
      s.otherSession = other;
      await signInWithCode(other.page, s.totpCodes[0], { recovery: true });
      await other.page.getByTestId("account-menu").waitFor();
      const me = await call(other.page, "GET", "/api/rbac/subjects/authentication/me");
      const probe = `/api/rbac/subjects/${me.id}/sessions`;
      expect((await other.page.request.get(probe)).status() === 200, "the other session works");

      await page.goto("/en/rbac/subjects/settings");
      const list = page.getByTestId("sessions");
      await list.locator('[data-testid=session][data-current="false"]').first().waitFor();
      const current = list.locator('[data-testid=session][data-current="true"]');
      await current.getByText("This device").waitFor();
      expect((await current.getByRole("button", { name: /^Sign out/ }).count()) === 0, "no Sign out for this device");
      const device = await list.locator('[data-testid=session][data-current="false"]').first().locator("span[title]").first().textContent();
      expect(/Chrome \d+ · Linux/.test(device), `a readable device name, got '${device}'`);
      await screen(page, "account-sessions");
      const before = await list.locator('[data-testid=session][data-current="false"]').count();
      await list.locator('[data-testid=session][data-current="false"]').first().getByRole("button", { name: /^Sign out/ }).click();
      await page.getByText("The session is ended").waitFor();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=session][data-current="false"]').length === n - 1, before);
      // Ended at once: the other context's next call is refused (through the context's request
      // API, as the page would send it, without a console error).
      const after = await other.page.request.get(probe);
      expect(after.status() === 401, `the ended session's next call answers 401, got ${after.status()}`);
      await other.context.close();
      auditProblems.push(...other.problems);
    },
  ],
];
