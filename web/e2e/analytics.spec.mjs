// First-party analytics and the notification outbox end to end: page views are beaconed without
// cookies and show up in the admin's dashboard, a donation moves the funnel, and an admin retries a
// notification the mail server refused, sends all due ones and previews a template.
import { ADMIN, expect, screen, signIn, watchedContext } from "./harness.mjs";
import { holding } from "./smtp-sink.mjs";

const AUTH = "/en/rbac/subject/authentication";
const COLLECT = "/api/analytic/collect";
const REFERRER = "https://search.example/?q=plant+a+tree";
const VISITOR = { email: "counted@e2e.test", password: "a counted visitor 123" };
const REFUSED = "refused@e2e.test";

/** Waits until `check()` answers something truthy (polling), or fails with `what`. */
async function until(what, check, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The admin's context (signed in by the admin specs; signed in here when run alone). */
async function admin(stack, s) {
  if (!s.w) {
    s.w = await watchedContext(stack);
    await signIn(s.w.page, ADMIN, "/admin");
    await s.w.page.getByRole("navigation", { name: "Sections" }).waitFor();
  }
  return s.w;
}

async function dashboard(page, days = 30) {
  const r = await page.request.get(`/api/analytic/dashboard?days=${days}`);
  expect(r.ok(), `the dashboard answers ${r.status()}`);
  return (await r.json()).data;
}

async function notificationsTo(page, email) {
  const q = `filters[and][0][column]=reciever&filters[and][0][method]=eq&filters[and][0][value]=${encodeURIComponent(email)}`;
  const r = await page.request.get(`/api/notification/notifications?${q}`);
  expect(r.ok(), `notifications answer ${r.status()}`);
  return (await r.json()).data;
}

const figure = async (locator) => Number((await locator.textContent()).replace(/\D/g, ""));

export const analyticsSpecs = [
  [
    "an anonymous visitor's page views are beaconed on each route change, never for /admin, and leave no cookie",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page, context } = w;
      const hits = [];
      const answers = [];
      context.on("request", (r) => {
        if (new URL(r.url()).pathname === COLLECT) hits.push(JSON.parse(r.postData() ?? "null"));
      });
      context.on("response", (r) => {
        if (new URL(r.url()).pathname === COLLECT) answers.push({ status: r.status(), cookie: r.headers()["set-cookie"] });
      });
      await page.goto("/ru/", { referer: REFERRER });
      await page.getByRole("heading", { name: "Посадим миллион деревьев вместе" }).waitFor();
      await until("the first view", () => hits.length >= 1);
      // Each beacon's answer is awaited before the page is left: a response in flight when a
      // document unloads is not always reported to the test (the hit itself still counts).
      await until("the first view's answer", () => answers.length >= 1);
      // A client-side navigation (no reload) is a view too.
      await page.getByRole("link", { name: "Блог", exact: true }).first().click();
      await page.waitForURL((u) => u.pathname === "/ru/blog");
      await until("the blog's view", () => hits.some((h) => h.path === "/ru/blog"));
      await until("the blog view's answer", () => answers.length >= 2);
      await page.goto("/en/ecommerce/products/tree");
      await page.getByTestId("prices").first().waitFor();
      await until("the product's view", () => hits.some((h) => h.path === "/en/ecommerce/products/tree"));
      await until("the product view's answer", () => answers.length >= 3);
      // The back office sends a visitor to sign in (that page is a view; the admin never is).
      await page.goto("/admin");
      await page.waitForURL((u) => u.pathname.endsWith("/rbac/subject/authentication/select-method"));
      await page.waitForLoadState("networkidle");
      expect(!hits.some((h) => h.path.startsWith("/admin")), `no view of the back office: ${JSON.stringify(hits)}`);
      const views = hits.filter((h) => h.type === "view" && !h.path.endsWith("/select-method"));
      expect(views.length === 3, `one view per page: ${JSON.stringify(hits)}`);
      expect(views[0].path === "/ru" && views[0].language === "ru" && views[0].referrer?.startsWith("https://search.example/"), `the first view has the referrer: ${JSON.stringify(views[0])}`);
      expect(views[1].language === "ru" && !("referrer" in views[1]), `later views have none: ${JSON.stringify(views[1])}`);
      expect(views[2].language === "en", `the language of the page: ${JSON.stringify(views[2])}`);
      expect(answers.length >= 3 && answers.every((a) => a.status === 204 && !a.cookie), `counted, no cookie set: ${JSON.stringify(answers)}`);
      const cookies = await context.cookies();
      expect(cookies.length === 0, `an anonymous visitor has no cookie: ${JSON.stringify(cookies.map((c) => c.name))}`);
      // Signing up is an event (and then the session's cookies are the only ones).
      await page.goto(`${AUTH}/email-and-password/registration`);
      await page.getByLabel("Email").fill(VISITOR.email);
      await page.getByLabel("Password").fill(VISITOR.password);
      await page.getByRole("button", { name: "Create an account" }).click();
      await page.getByTestId("account-menu").waitFor();
      await until("the sign-up event", () => hits.some((h) => h.type === "event" && h.name === "sign-up"));
      // No Telegram bot is configured: the settings offer no Telegram link (and load no outside script).
      await page.goto("/en/rbac/subjects/settings");
      await page.getByTestId("identity").getByText(VISITOR.email).waitFor();
      expect((await page.getByTestId("telegram-link").count()) === 0, "no Telegram section without a bot");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await context.close();
    },
  ],
  [
    "the suite's page views, referrers and events show up in the admin's analytics, for 7, 30 and 90 days",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      // The server writes hits every 2 s.
      const d = await until(
        "the views in the dashboard",
        async () => {
          const x = await dashboard(page, 7);
          return x.topPages.some((p) => p.key === "/ru/blog") && x.topReferrers.some((r) => r.key === "search.example") && x.events.some((e) => e.key === "sign-up") ? x : null;
        },
        8000,
      );
      expect(d.views >= 3 && d.visitors >= 1, `views ${d.views}, visitors ${d.visitors}`);
      expect(!d.topPages.some((p) => p.key.startsWith("/admin")), `no admin page is counted: ${JSON.stringify(d.topPages)}`);
      await page.goto("/admin");
      const card = page.getByTestId("visits-card");
      await card.getByRole("img", { name: "Views and visitors per day, last 7 days" }).waitFor();
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Analytics", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/admin/analytics");
      const screenEl = page.getByTestId("analytics");
      await screenEl.getByRole("heading", { name: "Analytics" }).waitFor();
      await page.locator('[data-testid=analytics][data-days="30"]').waitFor();
      expect((await figure(page.getByTestId("analytics-views"))) >= d.views, "the screen shows the views");
      await page.getByTestId("top-pages").getByText("/ru/blog", { exact: true }).waitFor();
      await page.getByTestId("top-referrers").getByText("search.example", { exact: true }).waitFor();
      await page.getByTestId("events").getByText("sign-up", { exact: true }).waitFor();
      await screenEl.getByRole("img", { name: "Views and visitors per day, last 30 days" }).waitFor();
      await screen(page, "admin-analytics-30");
      await page.getByRole("button", { name: "7 days" }).click();
      await page.locator('[data-testid=analytics][data-days="7"]').waitFor();
      await screenEl.getByRole("img", { name: "Views and visitors per day, last 7 days" }).waitFor();
      await page.getByRole("button", { name: "90 days" }).click();
      await page.locator('[data-testid=analytics][data-days="90"]').waitFor();
      await page.getByText("Figures per day").click();
      expect((await page.getByTestId("per-day").locator("tbody tr").count()) === 90, "a row per day");
      await screen(page, "admin-analytics-90");
    },
  ],
  [
    "a tree donation raises the funnel's started and paid counts",
    async (stack, s) => {
      const { page: adminPage } = await admin(stack, s);
      const before = (await dashboard(adminPage)).funnel;
      const w = await watchedContext(stack);
      const { page } = w;
      await page.goto("/ru/#donate");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("amounts-desktop").getByRole("button", { name: "1", exact: true }).click();
      await d.getByTestId("donation-email").fill("funnel@example.com");
      await d.getByRole("button", { name: "Оплатить" }).click();
      await page.waitForURL((u) => u.origin === stack.fakes.cloudpayments.url);
      await page.getByRole("button", { name: /pay/i }).click();
      await page.waitForURL((u) => u.pathname === "/ru/ecommerce/checkout/success");
      await page.locator('[data-testid=order-status][data-status="approving"]').waitFor({ timeout: 15000 });
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
      const after = await until("the funnel to move", async () => {
        const f = (await dashboard(adminPage)).funnel;
        return f.started > before.started && f.paid > before.paid ? f : null;
      });
      expect(after.views >= before.views, "views do not go down");
      await adminPage.goto("/admin/analytics");
      const started = adminPage.getByTestId("funnel-started");
      await started.waitFor();
      expect(Number(await started.getAttribute("data-value")) >= after.started, "the screen shows the started donations");
      expect(Number(await adminPage.getByTestId("funnel-paid").getAttribute("data-value")) >= after.paid, "the screen shows the paid orders");
      await adminPage.getByTestId("funnel-paid").getByText(/of the previous step/).waitFor();
      await adminPage.getByTestId("funnel").scrollIntoViewIfNeeded();
      await screen(adminPage, "admin-analytics-funnel");
    },
  ],
  [
    "an admin sees a notification the mail server refused as failed, retries it once the server takes it, sends all due and previews a template",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      // A password reset for an address the mail server refuses: two attempts, then failed. (The
      // registration's confirmation code is let through first: the reset is the one refused.)
      const reg = await fetch(`${stack.base}/api/rbac/subjects/authentication/email-and-password/registration`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login: REFUSED, password: "refused password 123", roles: ["user"] }),
      });
      expect(reg.ok, `registered: ${reg.status}`);
      await stack.smtp.waitFor(REFUSED, 15000, holding("verify-email?"));
      stack.smtp.refuse(REFUSED);
      const forgot = await fetch(`${stack.base}/api/rbac/subjects/authentication/email-and-password/forgot-password`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: REFUSED }),
      });
      expect(forgot.ok, `reset asked: ${forgot.status}`);
      const failed = await until(
        "the notification to fail",
        async () => (await notificationsTo(page, REFUSED)).find((n) => n.status === "failed"),
        30000,
      );
      expect(failed.attempts === 2 && failed.error, `failed after 2 attempts with the error: ${JSON.stringify(failed)}`);

      await page.goto("/admin/notification/notification");
      await page.getByRole("heading", { name: "Notifications" }).waitFor();
      await page.getByRole("group", { name: "Filter by status" }).getByRole("button", { name: "Failed" }).click();
      const table = page.getByTestId("notifications-table");
      // The failed row itself: until the filtered page arrives the table still shows every status, and
      // this address also has its sent confirmation.
      const row = table.locator("tr", { hasText: REFUSED }).filter({ has: page.locator('[data-status="failed"]') });
      await row.getByTestId("notification-error").getByText(/\S/).waitFor();
      expect((await row.getByTestId("notification-attempts").textContent()) === "2", "two attempts shown");
      await row.getByTestId("notification-open").click();
      const details = page.getByRole("dialog").getByTestId("notification-details");
      await details.locator('[data-status="failed"]').waitFor();
      expect(((await details.getByTestId("notification-error").textContent()) ?? "").length > 1, "the dialog shows the error");
      await screen(page, "admin-notification-failed");
      // The mail server takes it now: the retry sends it.
      stack.smtp.accept(REFUSED);
      await details.getByRole("button", { name: "Retry" }).click();
      await page.getByText("Queued to be sent").first().waitFor();
      await details.locator('[data-status="sent"]').waitFor({ timeout: 20000 });
      await stack.smtp.waitFor(REFUSED, 5000, holding("reset-password?code="));
      await page.keyboard.press("Escape");
      await page.getByRole("group", { name: "Filter by status" }).getByRole("button", { name: "All" }).click();
      await table.locator("tr", { hasText: REFUSED }).locator('[data-status="sent"]').first().waitFor();
      const sent = (await notificationsTo(page, REFUSED)).find((n) => n.id === failed.id);
      expect(sent?.status === "sent" && !sent.error, `sent, the error cleared: ${JSON.stringify(sent)}`);

      await page.getByTestId("notifications-send-all").click();
      await page.getByText(/^\d+ notifications? queued$/).first().waitFor();

      // The reset template's preview, in Russian, for data typed as JSON.
      await page.goto("/admin/notification/template");
      await page.getByRole("searchbox", { name: "Search: templates" }).fill("Password reset");
      await page.locator("tr", { hasText: "Password reset" }).first().getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit template" });
      const preview = dialog.getByTestId("template-preview");
      await preview.getByLabel("Data (JSON)").fill('{"resetUrl": "https://example.test/reset?code=e2e"}');
      await preview.getByLabel("Language").selectOption("ru");
      await preview.getByRole("button", { name: "Preview" }).click();
      await preview.getByTestId("template-preview-subject").getByText("Сброс пароля").waitFor();
      await preview.getByTestId("template-preview-body").getByText(/https:\/\/example\.test\/reset\?code=e2e/).waitFor();
      await preview.scrollIntoViewIfNeeded();
      await screen(page, "admin-template-preview");
      await page.keyboard.press("Escape");
    },
  ],
];
