// The admin back office, driven through a real browser against a real server.
import { ADMIN, expect, openAdvanced, screen, watchedContext } from "./harness.mjs";

const AUTH = "/en/rbac/subject/authentication";

/** Submits the form of `dialog` and waits for its status (the dialog may be retitled on create). */
async function submitAndWait(dialog, label) {
  await dialog.locator("form button[type=submit]").first().click();
  await dialog.page().getByRole("dialog").last().locator(`form button[data-status=${label}]`).first().waitFor();
}

export const adminSpecs = [
  [
    "someone signed out at an admin screen is sent to sign in, and comes back to that screen",
    async (stack, s) => {
      s.w = await watchedContext(stack);
      const { page } = s.w;
      await page.goto("/admin/host/widget");
      await page.waitForURL((u) => u.pathname === "/en/rbac/subject/authentication/select-method" && u.searchParams.get("redirect") === "/admin/host/widget");
      const form = page.getByRole("form", { name: "Sign in" });
      await form.getByLabel("Email").fill(ADMIN.email);
      await form.getByLabel("Password", { exact: true }).fill(ADMIN.password);
      await screen(page, "admin-sign-in-first");
      await form.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => u.pathname === "/admin/host/widget");
      await page.getByRole("navigation", { name: "Sections" }).waitFor();
      await page.getByTestId("account-menu").waitFor();
      await screen(page, "admin-home");
    },
  ],
  [
    "the admin creates a widget with an en and a ru title",
    async (_stack, s) => {
      const { page } = s.w;
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Page blocks", exact: true }).waitFor();
      await page.goto("/admin/host/widget");
      await page.getByRole("button", { name: "Add page block" }).click();
      const dialog = page.getByRole("dialog", { name: "New page block" });
      await dialog.waitFor();
      await openAdvanced(dialog);
      await dialog.getByLabel("Short name", { exact: true }).fill("e2e-widget");
      await dialog.getByLabel("Name in the admin", { exact: true }).fill("E2E widget admin");
      await dialog.getByLabel("Title (en)", { exact: true }).fill("Plant a tree");
      await dialog.getByRole("tablist", { name: "Title", exact: true }).getByRole("tab", { name: "ru" }).click();
      await dialog.getByLabel("Title (ru)", { exact: true }).fill("Посади дерево");
      await screen(page, "admin-create-widget");
      await submitAndWait(dialog, "success");
      await page.getByRole("dialog", { name: "Edit page block" }).waitFor();
      await screen(page, "admin-widget-saved");
      await page.keyboard.press("Escape");
      // The demo site has many widgets: find ours through the table's search.
      await page.getByRole("searchbox", { name: "Search: page blocks" }).fill("e2e-widget");
      const row = page.locator("tr", { hasText: "e2e-widget" });
      await row.waitFor();
      const stored = await page.evaluate(async () => {
        const r = await fetch("/api/host/widgets?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=e2e-widget");
        return (await r.json()).data[0];
      });
      expect(stored?.title?.en === "Plant a tree" && stored?.title?.ru === "Посади дерево", `titles stored as ${JSON.stringify(stored?.title)}`);
      await screen(page, "admin-widgets-table");
    },
  ],
  [
    "the admin creates a page and links the widget in the page's own form: picked by search, then a second one moved up by the keyboard",
    async (_stack, s) => {
      const { page } = s.w;
      await page.goto("/admin/host/page");
      await page.getByRole("button", { name: "Add page" }).click();
      const dialog = page.getByRole("dialog", { name: "New page" });
      await dialog.getByLabel("Title", { exact: true }).fill("E2E page");
      await dialog.getByLabel("Address", { exact: true }).fill("/e2e");
      await submitAndWait(dialog, "success");
      const update = page.getByRole("dialog", { name: "Edit page" });
      await update.waitFor();
      for (const sub of ["Page's layouts", "Page's metadata", "Page's blocks"]) {
        await update.getByRole("region", { name: sub }).waitFor();
      }
      const widgets = update.getByRole("region", { name: "Page's blocks", exact: true });
      // The page's blocks are a list of what is linked, with a searchable picker (no link form).
      const link = async (search, pick) => {
        await widgets.getByRole("button", { name: "Add existing: page block" }).click();
        await page.getByLabel("Find page blocks").fill(search);
        await page.getByRole("button", { name: pick }).click();
        await widgets.getByTestId("relation-item").filter({ hasText: pick }).waitFor();
      };
      await link("e2e-widget", /E2E widget admin/);
      await screen(page, "admin-attach-widget");
      expect((await widgets.getByTestId("relation-item").count()) === 1, "one widget attached");

      // A second widget, made through the API, linked after the first and then moved up with the keyboard.
      const second = await page.evaluate(async () => {
        const r = await fetch("/api/host/widgets", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ slug: "e2e-second", adminTitle: "E2E second" }) });
        return (await r.json()).data.id;
      });
      await link("e2e-second", /E2E second/);
      const items = widgets.getByTestId("relation-item");
      await items.nth(1).filter({ hasText: "E2E second" }).waitFor();
      await widgets.getByRole("button", { name: "Move “E2E second”" }).focus();
      await page.keyboard.press("ArrowUp");
      await items.first().filter({ hasText: "E2E second" }).waitFor();
      // The handle keeps the focus, so a second press would go on moving it.
      expect(await widgets.getByRole("button", { name: "Move “E2E second”" }).evaluate((b) => b === document.activeElement), "the moved item's handle keeps the focus");
      // The list moves at once and saves the new order behind it: read until it is saved (5 s at most).
      const order = await page.evaluate(async (w) => {
        let index;
        for (let i = 0; i < 50; i += 1) {
          const r = await fetch(`/api/host/pages-to-widgets?filters[and][0][column]=widgetId&filters[and][0][method]=eq&filters[and][0][value]=${w}`);
          index = (await r.json()).data[0].orderIndex;
          if (index === 0) break;
          await new Promise((done) => setTimeout(done, 100));
        }
        return index;
      }, second);
      expect(order === 0, `the moved widget's orderIndex is 0, got ${order}`);
      await screen(page, "admin-page-with-widget");
      await page.keyboard.press("Escape");
    },
  ],
  [
    "the admin edits and searches for the widget, sees the 409 message on a duplicate slug, and deletes it",
    async (_stack, s) => {
      const { page } = s.w;
      await page.goto("/admin/host/widget");
      await page.getByLabel("Search: page blocks").fill("e2e-widget");
      const row = page.locator("tr", { hasText: "e2e-widget" });
      await row.getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit page block" });
      await dialog.getByLabel("Title (en)", { exact: true }).fill("Plant two trees");
      await submitAndWait(dialog, "success");
      await page.keyboard.press("Escape");
      await page.locator("tr", { hasText: "Plant two trees" }).waitFor();
      await page.getByLabel("Search: page blocks").fill("no-such-widget-anywhere");
      await page.getByText("No found items.").waitFor();
      await screen(page, "admin-search-empty");
      await page.getByLabel("Search: page blocks").fill("e2e-widget");

      s.w.expectStatus(409);
      await page.getByRole("button", { name: "Add page block" }).click();
      const create = page.getByRole("dialog", { name: "New page block" });
      await openAdvanced(create);
      await create.getByLabel("Short name", { exact: true }).fill("e2e-widget");
      await submitAndWait(create, "error");
      const message = await create.getByTestId("form-error").textContent();
      expect(/^Short name: /.test(message ?? ""), `the form shows the slug conflict by the field's name, got '${message}'`);
      await screen(page, "admin-duplicate-slug");
      await page.keyboard.press("Escape");
      s.w.clearExpected();

      await page.locator("tr", { hasText: "e2e-widget" }).getByRole("button", { name: "Delete" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete?" });
      await confirm.waitFor();
      await screen(page, "admin-delete-confirm");
      await confirm.getByRole("button", { name: "Delete" }).click();
      await page.locator("tr", { hasText: "e2e-widget" }).waitFor({ state: "detached" });
      await page.getByText("No found items.").waitFor();
    },
  ],
  [
    "the admin sees paid orders on the dashboard, moves an order approving → packaging → delivering → delivered, cannot move it back, and replays a webhook",
    async (_stack, s) => {
      const { page } = s.w;
      // The site specs paid for trees with the dummy provider: the dashboard counts them.
      await page.goto("/admin");
      const card = page.getByTestId("sales-card");
      await card.getByTestId("sales-summary-rub").getByText(/paid orders?$/).waitFor();
      await screen(page, "admin-dashboard-sales");
      await page.goto("/admin/ecommerce/order");
      await page.getByRole("heading", { name: "Orders" }).waitFor();
      await page.getByRole("button", { name: "Paid", exact: true }).click();
      const table = page.getByTestId("orders-table");
      await table.locator('[data-status="approving"]').first().waitFor();
      // The rows of the list before the filter may still be on screen for a moment: wait for the
      // filtered answer, then check it.
      await page
        .waitForFunction(() => document.querySelectorAll("[data-testid=orders-table] [data-status]:not([data-status=approving])").length === 0, undefined, { timeout: 5000 })
        .catch(() => undefined);
      expect((await table.locator("[data-status]:not([data-status=approving])").count()) === 0, "the filter shows paid orders only");
      // Each row: number, date, customer, total, status, payment, in words.
      const firstRow = table.locator("tbody tr").first();
      await firstRow.getByText(/Test payment · Paid|CloudPayments · Paid/).waitFor();
      const cells = await firstRow.locator("td").allTextContents();
      expect(/^№ \d+$/.test(cells[0]) && cells[2].includes("@") && /\d/.test(cells[3]), `a row reads number, customer and total, got ${JSON.stringify(cells)}`);
      await screen(page, "admin-orders");
      // Found by its number, and by its buyer's address.
      const search = page.getByRole("searchbox", { name: "Find by number or email" });
      const rowsRead = (want) =>
        page.waitForFunction((w) => {
          const rows = [...document.querySelectorAll("[data-testid=orders-table] tbody tr")];
          return rows.length > 0 && rows.every((r) => r.textContent.includes(w)) && (!w.startsWith("№") || rows.length === 1);
        }, want);
      await search.fill(cells[0].replace(/\D/g, ""));
      await rowsRead(cells[0]);
      await search.fill(cells[2].trim());
      await rowsRead(cells[2].trim());
      await search.fill("");
      await table.getByTestId("order-open").first().click();
      const details = page.getByTestId("order-details");
      await details.locator('[data-status="approving"]').waitFor();
      // Provider and state in words (never 'dummy · paid').
      await details.getByTestId("order-invoice").first().getByText(/Test payment · Paid/).waitFor();
      await screen(page, "admin-order-details");
      for (const next of ["packaging", "delivering", "delivered"]) {
        await details.getByTestId(`order-move-${next}`).click();
        await details.locator(`[data-status="${next}"]`).first().waitFor();
      }
      await details.getByText("This status is final; only a correction can change it.").waitFor();
      expect((await details.locator("[data-testid^=order-move-]").count()) === 0, "no way forward or back is offered");
      const history = details.getByTestId("order-history");
      for (const step of ["Paid → Packing", "Packing → On its way", "On its way → Delivered"]) await history.getByText(step).waitFor();
      await screen(page, "admin-order-delivered");
      // Back is refused by the server too, not only hidden.
      const id = await details.getAttribute("data-order-id");
      // (Through the context's request API: a 409 in the page would count as a console error.)
      const back = (await page.request.patch(`/api/ecommerce/orders/${id}`, { data: { status: "approving" }, headers: { origin: new URL(page.url()).origin } })).status();
      expect(back === 409, `moving a delivered order back answers 409, got ${back}`);
      await page.keyboard.press("Escape");
      // The inbox: the dummy provider's webhooks, processed; a replay does not pay twice.
      await page.goto("/admin/billing/webhook");
      const inbox = page.getByTestId("inbox-table");
      await inbox.getByTestId("inbox-status").getByText("Processed").first().waitFor();
      // The enabled providers, with their currencies.
      const enabled = page.getByTestId("enabled-providers");
      await enabled.getByText(/CloudPayments · RUB/).waitFor();
      await enabled.getByText(/Stripe · any currency/).waitFor();
      await inbox.getByTestId("inbox-open").first().click();
      await page.getByTestId("inbox-verified").getByText("yes").waitFor();
      // (axe before the replay: a toast fading in reads as low contrast.)
      await screen(page, "admin-inbox");
      await page.getByTestId("inbox-replay").click();
      await page.getByText("Queued to be processed again").waitFor();
      await page.keyboard.press("Escape");
    },
  ],
  [
    "a signed-in user without the admin role sees 'Not authorized'",
    async (stack, s) => {
      const w = await watchedContext(stack);
      s.user = w;
      const { page } = w;
      await page.goto(`${AUTH}/email-and-password/registration`);
      await page.getByLabel("Email").fill("visitor@e2e.test");
      await page.getByLabel("Password").fill("a long enough password");
      await page.getByRole("button", { name: "Create an account" }).click();
      await page.getByTestId("account-menu").waitFor();
      await page.goto("/admin");
      await page.getByRole("heading", { name: "Not authorized" }).waitFor();
      await screen(page, "admin-not-authorized-user");
    },
  ],
];
