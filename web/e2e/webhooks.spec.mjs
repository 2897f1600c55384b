// Outgoing webhooks in the admin (issue 51, part 2): an admin subscribes an address to events,
// reads its signing secret, sends a test event and sends a delivery again — through a real browser
// against a real server, with a real receiver on a local port (the harness's).
import { createHmac } from "node:crypto";
import { ADMIN, artifacts, expect, pageCall, screen, signIn, watchedContext } from "./harness.mjs";

const call = pageCall;

/** The receiver's requests whose body is an event of `type`, waiting up to 15 s for `n` of them. */
async function receivedOf(stack, type, n = 1) {
  for (let i = 0; i < 150; i++) {
    const got = stack.hooks.received.filter((r) => {
      try {
        return JSON.parse(r.body).type === type;
      } catch {
        return false;
      }
    });
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the receiver did not get ${n} × ${type}: ${stack.hooks.received.map((r) => r.body.slice(0, 80)).join(" | ")}`);
}

/** Checks a request's Stoa-Signature with `secret`. */
function verify(req, secret) {
  const [t, v1] = String(req.headers["stoa-signature"] ?? "")
    .split(",")
    .map((p) => p.split("=")[1]);
  const want = createHmac("sha256", secret).update(`${t}.${req.body}`).digest("hex");
  expect(v1 === want, `the signature ${req.headers["stoa-signature"]} is HMAC-SHA256 of t.body with the secret`);
}

async function setLanguage(page, lang) {
  await page.evaluate((l) => localStorage.setItem("stoa.admin.language", l), lang);
}

export const webhookSpecs = [
  [
    "outgoing webhooks: an admin subscribes an address to events, reads its secret, tests it and sends a delivery again",
    async (stack, s) => {
      s.hooks = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
      const { page } = s.hooks;
      await signIn(page, ADMIN, "/admin/webhook/endpoint");
      await page.waitForURL((u) => u.pathname === "/admin/webhook/endpoint");
      await page.getByRole("button", { name: "Add webhook address" }).click();
      const dialog = page.getByRole("dialog", { name: "New webhook address" });
      await dialog.waitFor();
      await dialog.getByLabel("Address (URL)", { exact: true }).fill(stack.hooks.url);
      await dialog.getByLabel("Events", { exact: true }).fill("blog.article.created ecommerce.order.paid");
      await dialog.getByLabel("Note", { exact: true }).fill("Accounting system");
      await screen(page, "webhook-new-en");
      await dialog.locator("form button[type=submit]").first().click();
      const edit = page.getByRole("dialog", { name: "Edit webhook address" });
      await edit.waitFor();
      // The secret, shown on request.
      await edit.getByTestId("webhook-secret-show").click();
      const secret = await edit.getByTestId("webhook-secret-value").inputValue();
      expect(/^[0-9a-f]{64}$/.test(secret), `a 64-digit secret: ${secret}`);
      // A test event, delivered and signed.
      await edit.getByTestId("webhook-test").click();
      await edit.getByTestId("webhook-test-result").getByText("Delivered: the address answered 200").waitFor();
      const [ping] = await receivedOf(stack, "webhook.ping");
      verify(ping, secret);
      // The events to choose from, named in words beside the name to type.
      await edit.getByText("Events you can subscribe to").click();
      const paidRow = edit.getByTestId("webhook-event-list").locator("li", { hasText: "ecommerce.order.paid" });
      await paidRow.waitFor();
      const paidWords = await paidRow.innerText();
      expect(/Order.*: paid/.test(paidWords), `the paid event in words: ${paidWords}`);
      await screen(page, "webhook-endpoint-en");
      await page.keyboard.press("Escape");

      // A real event: an article created is sent by the queue, signed.
      await call(page, "POST", "/api/blog/articles", { title: { en: "Hooked", ru: "Зацепило" } });
      const [created] = await receivedOf(stack, "blog.article.created");
      verify(created, secret);
      const event = JSON.parse(created.body);
      expect(event.data.title.en === "Hooked", `the article in the body: ${created.body.slice(0, 200)}`);

      // The delivery log, and one delivery sent again with the same event id.
      await page.goto("/admin/webhook/delivery");
      await page.getByRole("heading", { name: "Webhook deliveries" }).waitFor();
      await screen(page, "webhook-deliveries-en");
      const deliveries = await call(page, "GET", "/api/webhook/deliveries?limit=10");
      const d = deliveries.data.find((x) => x.type === "blog.article.created");
      expect(d?.status === "delivered", `delivered: ${JSON.stringify(d)}`);
      // A kept record opens to be read, not edited.
      await page.locator("tr", { hasText: "blog.article.created" }).first().getByRole("button", { name: "View" }).click();
      const view = page.getByRole("dialog", { name: "Webhook delivery" });
      await view.getByTestId("form-read-only").waitFor();
      expect((await view.locator("form button[type=submit]").count()) === 0, "no Save on a kept record");
      expect(await view.getByLabel("Tries", { exact: true }).isDisabled(), "its fields are read, not edited");
      const panel = view.getByTestId("webhook-delivery-panel");
      await panel.waitFor();
      await panel.getByText("Body sent").click();
      await panel.getByTestId("webhook-event-body").getByText('"blog.article.created"').waitFor();
      await panel.getByTestId("webhook-replay").click();
      await page.getByText("Queued to be sent again").waitFor();
      const both = await receivedOf(stack, "blog.article.created", 2);
      expect(both[1].headers["stoa-event-id"] === event.id, "the replay carries the same event id");
      await screen(page, "webhook-delivery-en");

      // The same screens in Russian.
      await setLanguage(page, "ru");
      const endpoints = await call(page, "GET", "/api/webhook/endpoints?limit=10");
      await page.goto(`/admin/webhook/endpoint?edit=${endpoints.data[0].id}`);
      await page.getByRole("dialog", { name: "Изменить: адрес вебхука" }).or(page.getByTestId("webhook-endpoint-panel")).first().waitFor();
      await page.getByRole("button", { name: "Отправить тестовое событие" }).click();
      await page.getByText("Доставлено: адрес ответил 200").waitFor();
      await screen(page, "webhook-endpoint-ru");
      // The events in Russian words, opened by the keyboard alone.
      const summary = page.getByText("События, на которые можно подписаться");
      await summary.focus();
      await page.keyboard.press("Enter");
      const paidRu = page.getByTestId("webhook-event-list").locator("li", { hasText: "ecommerce.order.paid" });
      await paidRu.waitFor();
      const words = await paidRu.innerText();
      expect(/Заказ.*: оплата/.test(words), `the paid event in Russian words: ${words}`);
      await paidRu.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${artifacts}/webhook-events-ru.png` });
      await page.goto("/admin/webhook/delivery");
      await page.getByRole("heading", { name: "Доставки вебхуков" }).waitFor();
      await screen(page, "webhook-deliveries-ru");
      await setLanguage(page, "en");
    },
  ],
  [
    "outgoing webhooks: the screens fit a phone, in en and ru",
    async (stack, s) => {
      s.hooksMobile = await watchedContext(stack, { viewport: { width: 390, height: 844 } });
      const { page } = s.hooksMobile;
      await signIn(page, ADMIN, "/admin/webhook/endpoint");
      await page.waitForURL((u) => u.pathname === "/admin/webhook/endpoint");
      const endpoints = await call(page, "GET", "/api/webhook/endpoints?limit=10");
      for (const lang of ["en", "ru"]) {
        await setLanguage(page, lang);
        await page.goto(`/admin/webhook/endpoint?edit=${endpoints.data[0].id}`);
        await page.getByTestId("webhook-endpoint-panel").waitFor();
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
        expect(!wide, `no sideways scroll at 390 px (${lang})`);
        await screen(page, `webhook-endpoint-390-${lang}`);
      }
      await setLanguage(page, "en");
    },
  ],
];
