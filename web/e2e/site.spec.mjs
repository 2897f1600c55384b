// The public site on the demo data: every block of the home page in ru and en, the mobile menu,
// the slider, the FAQ, blog navigation, the product price, the CRM form, not-found and a widget
// that fails to render.
import { ADMIN, expect, screen, watchedContext } from "./harness.mjs";

const YEAR = new Date().getFullYear();

const HOME_RU = [
  "Посадим миллион деревьев вместе",
  "Наша цель — 1 000 000 деревьев",
  "Как это работает",
  "О нас пишут",
  "Лес, который вырос",
  "Посадите дерево сейчас",
  "Российский банк",
  "Как растёт ваше дерево",
  "Выберите свой вклад",
  "Вода возвращается",
  "Нас поддерживают",
  "Посмотрите, как это было",
  "Где мы сажаем",
  "Реквизиты фонда",
  "Оплата по QR-коду",
  "Частые вопросы",
  "Напишите нам",
  `© ${YEAR} Все права защищены`,
];
const HOME_EN = [
  "Let's plant a million trees together",
  "Our target: 1,000,000 trees",
  "How it works",
  "In the press",
  "A forest that grew",
  "Plant a tree now",
  "How your tree grows",
  "Choose your contribution",
  "They support us",
  "Watch how it went",
  "Where we plant",
  "Foundation bank details",
  "Pay with a QR code",
  "Frequently asked questions",
  "Write to us",
];

async function seesAll(page, texts) {
  for (const t of texts) {
    const n = await page.getByText(t, { exact: false }).count();
    expect(n > 0, `the page shows "${t}"`);
  }
}

/** The trees-planted counter as the site shows it: the paid quantity (from the API) + 66 713. */
async function treesPlanted(stack) {
  const r = await fetch(`${stack.base}/api/ecommerce/orders/paid-orders-to-products-quantity`);
  return (await r.json()).data + 66_713;
}

/** A number as the counter prints it: any space (ru) or a comma (en) between thousands. */
function spaced(n) {
  return new RegExp(`^\\s*${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "[\\s,.]")}(\\D|$)`);
}

export const siteSpecs = [
  [
    "the home page shows every block in ru and en, from the server's data",
    async (stack, s) => {
      s.site = await watchedContext(stack);
      const { page } = s.site;
      const html = await (await fetch(`${stack.base}/ru/`)).text();
      expect(html.includes("<title>Для планеты — посадим миллион деревьев</title>"), "the server sends the page title");
      expect(html.includes('property="og:title"') && html.includes('id="stoa-page"'), "Open Graph tags and the embedded bundle");
      const bundleCalls = [];
      page.on("request", (r) => r.url().includes("/api/host/pages/bundle") && bundleCalls.push(r.url()));
      await page.goto("/ru/");
      await page.getByRole("heading", { name: "Посадим миллион деревьев вместе" }).waitFor();
      expect(bundleCalls.length === 0, `the first render makes no bundle request (${bundleCalls.join(", ")})`);
      await seesAll(page, HOME_RU);
      await page.getByTestId("progress-count").getByText(/66\s713/).waitFor();
      // (0 paid + 66 713) of 1 000 000, as a width that animates up to 6.6713 %.
      await page.waitForFunction(() => parseFloat(document.querySelector("[data-testid=progress-fill]")?.style.width ?? "0") > 6.6);
      const width = await page.getByTestId("progress-fill").evaluate((e) => parseFloat(e.style.width));
      expect(Math.abs(width - 6.6713) < 0.001, `progress width ${width}%`);
      // Timeline steps light up once they scroll into view; the third has a dashed line.
      const steps = page.locator("#timeline li");
      expect((await steps.count()) === 5, "five timeline steps");
      expect((await page.locator('#timeline li[data-active="true"]').count()) === 0, "steps below the fold start dark");
      await steps.nth(2).scrollIntoViewIfNeeded();
      await page.locator('#timeline li[data-active="true"]').nth(2).waitFor();
      expect((await steps.nth(2).locator(".border-dashed").count()) === 1, "step 3 has a dashed line");
      expect((await steps.nth(1).locator(".border-dashed").count()) === 0, "step 2 has a solid line");
      // Headlines: 7 cards in a tidy grid on a large screen — rows of three sharing their top and
      // height, columns of one width, the last short row centred.
      const cards = page.locator('[data-variant="content-block-for-planet-headlines"] [data-index]');
      expect((await cards.count()) === 7, "seven headline cards");
      const boxes = await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height) })));
      const rows = [...new Set(boxes.map((b) => b.y))];
      expect(rows.length === 3 && rows.map((y) => boxes.filter((b) => b.y === y).length).join() === "3,3,1", `rows of three: ${JSON.stringify(boxes)}`);
      expect(new Set(boxes.map((b) => b.w)).size === 1, `one column width: ${JSON.stringify(boxes)}`);
      expect(rows.every((y) => new Set(boxes.filter((b) => b.y === y).map((b) => b.h)).size === 1), `a row's cards are as tall as each other: ${JSON.stringify(boxes)}`);
      expect(boxes[6].x === boxes[1].x, `the last card sits under the middle column: ${JSON.stringify(boxes)}`);
      await page.getByTestId("total").getByText("199 ₽").waitFor();
      await screen(page, "site-home-ru-desktop");
      await page.goto("/en/");
      await page.getByRole("heading", { name: "Let's plant a million trees together" }).waitFor();
      await seesAll(page, HOME_EN);
      await screen(page, "site-home-en-desktop");
    },
  ],
  [
    "the tree donation: stepper minimum 1, quick amounts, total, the foreign bank's PayPal copy",
    async (_stack, s) => {
      const { page } = s.site;
      await page.goto("/ru/#donate");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("minus").click();
      expect((await d.getByTestId("quantity").inputValue()) === "1", "minus does nothing at 1");
      await d.getByTestId("plus").click();
      await d.getByTestId("total").getByText("398 ₽").waitFor();
      await d.getByTestId("amounts-desktop").getByRole("button", { name: "1000", exact: true }).click();
      await d.getByTestId("total").getByText(/199\s000 ₽/).waitFor();
      await d.getByRole("button", { name: "Оплатить" }).waitFor();
      await d.getByLabel("Иностранный банк").check();
      await d.getByText("donate@forplanet.example").waitFor();
      await d.getByRole("link", { name: "Оплатить через Telegram" }).waitFor();
    },
  ],
  [
    "a visitor pays for 3 trees with a Russian bank through CloudPayments (the fake's payment page), lands on the success page, and the progress bar grows by 3",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page } = w;
      const before = await treesPlanted(stack);
      await page.goto("/ru/#donate");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("amounts-desktop").getByRole("button", { name: "3", exact: true }).click();
      await d.getByTestId("total").getByText("597 ₽").waitFor();
      await d.getByTestId("donation-email").fill("donor@example.com");
      await d.getByRole("button", { name: "Оплатить" }).click();
      // CloudPayments' hosted page (the fake), then back to the site.
      await page.waitForURL((u) => u.origin === stack.fakes.cloudpayments.url);
      await page.getByRole("button", { name: /pay/i }).click();
      await page.waitForURL((u) => u.pathname === "/ru/ecommerce/checkout/success");
      await page.getByTestId("checkout-return").getByText("Спасибо!").waitFor();
      await page.locator('[data-testid=order-status][data-status="approving"]').waitFor({ timeout: 15000 });
      await screen(page, "checkout-success-ru");
      await page.goto("/ru/");
      await page.getByTestId("progress-count").getByText(spaced(before + 3)).waitFor();
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "a visitor with a foreign bank pays for 2 trees through Stripe Checkout (the fake), lands on the success page, and the progress bar grows by 2",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page } = w;
      const before = await treesPlanted(stack);
      await page.goto("/en/#donate");
      const d = page.getByTestId("tree-donation");
      await d.getByLabel("Foreign bank").check();
      await d.getByTestId("pay-foreign").waitFor();
      await d.getByTestId("amounts-desktop").getByRole("button", { name: "1", exact: true }).click();
      await d.getByTestId("plus").click();
      await d.getByTestId("donation-email").fill("abroad@example.com");
      await d.getByTestId("pay").click();
      await page.waitForURL((u) => u.origin === stack.fakes.stripe.url);
      await page.getByRole("button", { name: /pay/i }).click();
      await page.waitForURL((u) => u.pathname === "/en/ecommerce/checkout/success");
      await page.locator('[data-testid=order-status][data-status="approving"]').waitFor({ timeout: 15000 });
      await page.goto("/en/");
      await page.getByTestId("progress-count").getByText(spaced(before + 2)).waitFor();
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "a visitor adds the tree from its product page, sees the badge, changes the quantity, checks out and finds the order in My orders",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page } = w;
      await page.goto("/en/ecommerce/products/tree");
      await page.getByTestId("add-to-cart").first().click();
      await page.getByTestId("cart-badge").getByText("1").waitFor();
      await page.getByTestId("cart-button").first().click();
      const sheet = page.getByRole("dialog", { name: "Cart" });
      await sheet.waitFor();
      await sheet.getByRole("button", { name: "More trees" }).click();
      await page.getByText("Updated successfully").waitFor();
      await page.getByTestId("cart-badge").getByText("2").waitFor();
      await sheet.getByTestId("cart-totals").getByText("398 ₽").waitFor();
      await screen(page, "cart-sheet-en");
      await sheet.getByTestId("checkout-email").fill("visitor@example.com");
      await sheet.getByRole("button", { name: "Checkout" }).click();
      await page.waitForURL((u) => u.pathname === "/en/ecommerce/checkout/success");
      await page.locator('[data-testid=order-status][data-status="approving"]').waitFor({ timeout: 15000 });
      await page.goto("/en/ecommerce/orders");
      await page.getByTestId("my-orders").getByTestId("order-card").first().waitFor();
      expect((await page.getByTestId("my-orders").locator('[data-status="approving"]').count()) >= 1, "the paid order is in My orders");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "at a mobile width the menu toggles and closes after a navigation; mobile screenshots",
    async (stack, s) => {
      s.mobile = await watchedContext(stack, { viewport: { width: 390, height: 844 } });
      const { page } = s.mobile;
      await page.goto("/ru/");
      const menu = page.getByTestId("mobile-menu");
      expect((await menu.count()) === 0, "the menu starts closed");
      await page.getByTestId("menu-toggle").click();
      await menu.waitFor();
      await menu.getByTestId("menu-close").click();
      await menu.waitFor({ state: "detached" });
      await page.getByTestId("menu-toggle").click();
      await menu.getByRole("link", { name: "Блог" }).click();
      await page.waitForURL((u) => u.pathname === "/ru/blog");
      await menu.waitFor({ state: "detached" });
      await page.goto("/ru/");
      await page.getByTestId("amounts-mobile").getByRole("button", { name: "100", exact: true }).waitFor();
      await screen(page, "site-home-ru-mobile");
      await page.goto("/en/");
      await screen(page, "site-home-en-mobile");
    },
  ],
  [
    "the slider loops both ways and an FAQ item opens",
    async (_stack, s) => {
      const { page } = s.site;
      await page.goto("/ru/");
      const title = page.getByTestId("slide-title");
      await title.getByText("Сосны у реки").waitFor();
      await page.getByTestId("slider-prev").click();
      await title.getByText("Волонтёрский выезд").waitFor();
      await page.getByTestId("slider-next").click();
      await title.getByText("Сосны у реки").waitFor();
      await page.getByTestId("slider-next").click();
      await title.getByText("Дубрава").waitFor();
      const item = page.locator("details", { hasText: "Куда идут деньги?" });
      expect(!(await item.evaluate((d) => d.open)), "the FAQ item starts closed");
      await item.locator("summary").click();
      await item.getByText("Отчёт о расходах публикуется каждый квартал.").waitFor();
      expect(await item.evaluate((d) => d.open), "the FAQ item opens");
    },
  ],
  [
    "blog: a category's More leads to its articles, an article opens with its product",
    async (_stack, s) => {
      const { page } = s.site;
      await page.goto("/ru/blog");
      await page.getByRole("link", { name: "Подробнее: Новости" }).click();
      await page.waitForURL((u) => u.pathname === "/ru/blog/categories/news");
      await page.getByRole("heading", { name: "Новости" }).waitFor();
      await page.getByRole("link", { name: "Как мы сажаем деревья" }).click();
      await page.waitForURL((u) => u.pathname === "/ru/blog/articles/how-we-plant");
      await page.getByRole("heading", { name: "Как мы сажаем деревья", level: 1 }).waitFor();
      await page.getByTestId("prices").first().getByText("199 ₽").waitFor();
      await screen(page, "site-article");
    },
  ],
  [
    "the product page shows 199 ₽",
    async (_stack, s) => {
      const { page } = s.site;
      await page.goto("/ru/ecommerce/products/tree");
      await page.getByRole("heading", { name: "Дерево", level: 1 }).waitFor();
      await page.getByTestId("prices").getByText("199 ₽").waitFor();
      await page.getByTestId("prices").getByText("995 ₸").waitFor();
      await screen(page, "site-product");
    },
  ],
  [
    "the CRM form submits and the admin API shows the request",
    async (stack, s) => {
      const { page } = s.site;
      await page.goto("/ru/#contact");
      const form = page.getByTestId("crm-form");
      s.site.expectStatus(422);
      await form.getByRole("button", { name: "Отправить" }).click();
      await form.getByText("Обязательное поле").first().waitFor();
      await form.getByLabel("Имя").fill("Вера");
      await form.getByLabel("Почта").fill("vera@e2e.test");
      await form.getByLabel("Сколько деревьев хотите посадить").fill("12");
      await form.getByLabel("Сообщение").fill("Хочу приехать на посадку");
      await form.getByRole("button", { name: "Отправить" }).click();
      await page.getByText("Форма отправлена").first().waitFor();
      await page.locator("[data-sonner-toast]").first().waitFor({ state: "detached", timeout: 15000 });
      await screen(page, "site-form");
      const auth = await fetch(`${stack.base}/api/rbac/subjects/authentication/email-and-password/authentication`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login: ADMIN.email, password: ADMIN.password }),
      });
      const { data } = await auth.json();
      const list = await fetch(`${stack.base}/api/crm/requests`, { headers: { authorization: `Bearer ${data.jwt}` } });
      const rows = (await list.json()).data;
      expect(rows.some((r) => r.payload?.values?.name === "Вера" && r.payload?.values?.trees === "12"), `the request is stored: ${JSON.stringify(rows)}`);
      const anon = await fetch(`${stack.base}/api/crm/requests`);
      expect(anon.status === 401, "visitors cannot read requests");
    },
  ],
  [
    "an unknown page shows the not-found page with status 404",
    async (stack, s) => {
      const { page } = s.site;
      s.site.expectStatus(404);
      const res = await page.goto("/ru/no-such-page");
      expect(res?.status() === 404, `status ${res?.status()}`);
      await page.getByRole("heading", { name: "Страница не найдена" }).waitFor();
      await page.getByRole("link", { name: "На главную" }).first().waitFor();
      const sitemap = await (await fetch(`${stack.base}/sitemap.xml`)).text();
      expect(sitemap.includes(`${stack.base}/ru/blog/articles/how-we-plant`) && sitemap.includes(`${stack.base}/en/blog/articles/how-we-plant`), "the sitemap lists pages in both languages");
    },
  ],
  [
    "a widget that fails to render shows the dashed box and the page still renders",
    async (stack) => {
      // A context of its own: React reports the caught error on the console, as it should.
      const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: stack.base });
      const page = await context.newPage();
      await page.route("**/ru/", async (route) => {
        const res = await route.fetch();
        const html = await res.text();
        const broken = html.replace(/(<script id="stoa-page" type="application\/json">)(.*?)(<\/script>)/s, (_m, a, json, b) => {
          const boot = JSON.parse(json);
          for (const w of boot.bundle.widgets)
            for (const e of w._externals) if (e.widget.variant === "content-block-for-planet-faq") e.widget._rel["widgets-to-features"] = "broken";
          return a + JSON.stringify(boot).replace(/</g, "\\u003c") + b;
        });
        await route.fulfill({ response: res, body: broken });
      });
      await page.goto("/ru/");
      await page.getByTestId("widget-error").waitFor();
      expect((await page.getByTestId("widget-error").count()) === 1, "one widget failed");
      await page.getByRole("heading", { name: "Посадим миллион деревьев вместе" }).waitFor();
      await page.getByText("Напишите нам").waitFor();
      await page.getByTestId("widget-error").screenshot({ path: "e2e/artifacts/site-widget-error.png" });
      await context.close();
    },
  ],
];
