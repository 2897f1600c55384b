// A donor and a buyer meet the finished product, in ru and en, on a desktop and a phone: a tier's
// 'Choose' presets the donation, a bad receipt email is marked on its field, a keyboard-only
// donation reaches the payment page, the success page follows the payment to 'Paid' by itself, an
// already open home page's counter moves, the product page pays in tenge through TipTop Pay, the
// cart sheet is titled 'Cart' and closes, a cart is checked out and paid with the keyboard alone,
// My orders and the order page show numbers, dates, the payment and the receipt — never an order's id.
import { expect, screen, watchedContext } from "./harness.mjs";

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The trees-planted counter as an open page shows it, as a number. */
async function shownCount(page) {
  const text = await page.getByTestId("progress-count").textContent();
  return Number((/[\d\s,.\u00a0\u202f]+/.exec(text)?.[0] ?? "").replace(/\D/g, ""));
}

/** Neither the page's text nor its title shows an order's id. */
async function noOrderId(page, what) {
  const text = await page.evaluate(() => `${document.title}\n${document.body.innerText}`);
  expect(!UUID.test(text), `${what} shows an order id: ${UUID.exec(text)?.[0]}`);
}

/** The tier card whose heading is `title` ('10 деревьев'), and its 'Choose' link. */
function tierLink(page, title) {
  return page.locator("div", { has: page.getByRole("heading", { name: title, exact: true }) }).last().getByRole("link");
}

/** Presses Tab until `locator` has the focus (at most `max` times). */
async function tabTo(page, locator, max = 300) {
  for (let i = 0; i < max; i++) {
    if (await locator.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${locator}`);
}

/** The header's cart button (on a phone, in the menu, opened first). */
async function cartButton(page) {
  const toggle = page.getByTestId("menu-toggle");
  if ((await toggle.isVisible()) && (await page.getByTestId("mobile-menu").count()) === 0) await toggle.click();
  return page.getByTestId("cart-button").filter({ visible: true });
}

async function pressed(donation, row, amount) {
  return (await donation.getByTestId(row).getByRole("button", { name: String(amount), exact: true }).getAttribute("aria-pressed")) === "true";
}

export const donorSpecs = [
  [
    "shop, donor: a tier's 'Choose' presets the quantity (10, 100) and highlights its quick amount, on a desktop and a phone",
    async (stack) => {
      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto("/ru/");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("bank-kz").waitFor();
      expect(await pressed(d, "amounts-desktop", 1), "1 is highlighted at first");
      await tierLink(page, "10 деревьев").click();
      await page.waitForFunction(() => document.querySelector("[data-testid=quantity]")?.value === "10");
      expect(await pressed(d, "amounts-desktop", 10), "10 is highlighted after the 10-tree tier");
      expect(!(await pressed(d, "amounts-desktop", 1)), "1 is no longer highlighted");
      await d.getByTestId("total").getByText(/1\s990 ₽/).waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "quantity");
      expect(await d.evaluate((el) => el.getBoundingClientRect().top < innerHeight && el.getBoundingClientRect().bottom > 0), "the form is in view");
      await screen(page, "donor-donation-ru-desktop");
      await tierLink(page, "100 деревьев").click();
      await page.waitForFunction(() => document.querySelector("[data-testid=quantity]")?.value === "100");
      expect(await pressed(d, "amounts-desktop", 100), "100 is highlighted after the 100-tree tier");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();

      for (const lang of ["en", "ru"]) {
        const m = await watchedContext(stack, { viewport: PHONE });
        await m.page.goto(`/${lang}/`);
        const md = m.page.getByTestId("tree-donation");
        await md.getByTestId("bank-kz").waitFor();
        expect(await pressed(md, "amounts-mobile", 1), `${lang}: the phone's quick amounts show the default 1`);
        await tierLink(m.page, lang === "en" ? "100 trees" : "100 деревьев").click();
        await m.page.waitForFunction(() => document.querySelector("[data-testid=quantity]")?.value === "100");
        expect(await pressed(md, "amounts-mobile", 100), `${lang}: 100 is highlighted on the phone`);
        expect(await m.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${lang}: no horizontal overflow at 390 px`);
        await screen(m.page, `donor-donation-${lang}-mobile`);
        expect(m.problems.length === 0, m.problems.join("\n"));
        await m.context.close();
      }
    },
  ],
  [
    "shop, donor: a bad receipt email is marked on its field and the payment does not start",
    async (stack) => {
      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto("/en/#donation");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("bank-kz").waitFor();
      const email = d.getByLabel("Email for the receipt");
      await email.fill("donor@");
      await email.press("Tab");
      await d.getByTestId("donation-email-error").getByText("Enter a valid email, like name@example.com").waitFor();
      expect((await email.getAttribute("aria-invalid")) === "true", "the field is marked invalid");
      await d.getByRole("button", { name: "Pay" }).click();
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "donation-email");
      expect(new URL(page.url()).pathname === "/en/", "no payment started");
      await screen(page, "donor-bad-email-en-desktop");
      await email.fill("donor@example.com");
      await d.getByTestId("donation-email-error").waitFor({ state: "detached" });
      expect((await email.getAttribute("aria-invalid")) === null, "a good address clears the mark");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "shop, donor: a keyboard-only donation reaches the payment page; the success page gets to 'Оплачен' by itself; an open home page's counter moves",
    async (stack) => {
      // A home page already open in another browser, before the payment.
      const watcher = await watchedContext(stack, { viewport: DESKTOP });
      await watcher.page.goto("/en/");
      await watcher.page.getByTestId("progress-count").waitFor();
      await watcher.page.locator('[data-testid=progress-count][data-state="ready"]').waitFor();
      const before = await shownCount(watcher.page);

      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto("/ru/");
      await page.getByTestId("tree-donation").getByTestId("bank-kz").waitFor();
      // Tab to the 10-tree tier's 'Выбрать', Enter: the form takes 10 and the focus.
      await tabTo(page, tierLink(page, "10 деревьев"));
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "quantity" && document.activeElement.value === "10");
      // The next control is '+': Space makes it 11.
      await page.keyboard.press("Tab");
      expect((await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))) === "plus", "Tab goes from the quantity to '+'");
      await page.keyboard.press("Space");
      await page.waitForFunction(() => document.querySelector("[data-testid=quantity]")?.value === "11");
      await page.keyboard.press("Tab");
      await page.keyboard.type("donor@example.com");
      await page.keyboard.press("Tab");
      expect((await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))) === "pay", "Tab goes from the email to 'Оплатить'");
      await page.keyboard.press("Enter");
      // CloudPayments' page (the fake), paid by keyboard too.
      await page.waitForURL((u) => u.origin === stack.fakes.cloudpayments.url);
      await page.getByRole("button", { name: /pay/i }).focus();
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === "/ru/ecommerce/checkout/success");
      const back = page.getByTestId("checkout-return");
      await back.getByRole("heading", { name: "Спасибо!" }).waitFor();
      // No reload from here on: the page follows the order to its end by itself.
      await back.locator('[data-testid=payment-note][data-state="paid"]').waitFor({ timeout: 20000 });
      await back.getByText("Оплата прошла: заказ оплачен.").waitFor();
      await back.getByTestId("order-status").getByText("Оплачен").waitFor();
      await noOrderId(page, "the success page");
      await screen(page, "donor-success-ru-desktop");

      // The page opened before the payment shows the 11 trees within seconds, without a reload
      // (the server tells every open page that a payment moved the counters).
      await watcher.page.waitForFunction((n) => Number((document.querySelector("[data-testid=progress-count]")?.textContent ?? "").replace(/\D/g, "")) >= n, before + 11, { timeout: 8000 });
      const after11 = await shownCount(watcher.page);
      expect(after11 === before + 11, `the open page's counter went from ${before} to ${after11}, not to ${before + 11}`);

      for (const c of [w, watcher]) expect(c.problems.length === 0, c.problems.join("\n"));
      await watcher.context.close();
      await w.context.close();
    },
  ],
  [
    "shop, donor: the card variant opens CloudPayments' widget over the page (one-stage charge, mini, 199 ₽ × trees, the email asked); closed, nothing is paid; paid, the success page gets to 'Оплачен' and an open page's counter moves",
    async (stack) => {
      const watcher = await watchedContext(stack, { viewport: DESKTOP });
      await watcher.page.goto("/ru/");
      await watcher.page.locator('[data-testid=progress-count][data-state="ready"]').waitFor();
      const before = await shownCount(watcher.page);

      // The page in en and ru, on a desktop and a phone, before anything is paid.
      for (const [lang, viewport] of [
        ["en", DESKTOP],
        ["en", PHONE],
        ["ru", PHONE],
      ]) {
        const v = await watchedContext(stack, { viewport });
        await v.page.goto(`/${lang}/donate`);
        const c = v.page.getByTestId("card-donation");
        await c.getByRole("button", { name: lang === "en" ? "Pay by card" : "Оплатить картой" }).waitFor();
        await c.getByText(lang === "en" ? "The card form of CloudPayments opens over this page" : "Форма оплаты CloudPayments откроется поверх страницы", { exact: false }).waitFor();
        expect(await v.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${lang}: no horizontal overflow`);
        await screen(v.page, `donor-card-${lang}-${viewport === PHONE ? "mobile" : "desktop"}`);
        expect(v.problems.length === 0, v.problems.join("\n"));
        await v.context.close();
      }

      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto("/ru/donate");
      const card = page.getByTestId("card-donation");
      await card.getByTestId("plus").click();
      await card.getByTestId("total").getByText(/398 ₽/).waitFor();
      await card.getByTestId("card-donation-email").fill("card-donor@example.com");
      await screen(page, "donor-card-ru-desktop");

      // Opened and closed: the widget says nothing was paid, the page says so and stays.
      await card.getByRole("button", { name: "Оплатить картой" }).click();
      let widget = page.getByRole("dialog", { name: "Оплата картой" });
      await widget.waitFor();
      await widget.getByRole("button", { name: "Закрыть" }).click();
      await page.getByText("Оплата не завершена").waitFor();
      await page.getByText("Деньги не списаны; можно попробовать ещё раз.").waitFor();
      expect(new URL(page.url()).pathname === "/ru/donate", "closing the form leaves the page where it was");

      // Opened again and paid, with the keyboard alone: the options the page gave (SPEC §2) are
      // what the form shows, and the focus is on its 'Оплатить'.
      await tabTo(page, card.getByRole("button", { name: "Оплатить картой" }));
      await page.keyboard.press("Enter");
      widget = page.getByRole("dialog", { name: "Оплата картой" });
      await widget.waitFor();
      await page.waitForFunction(() => document.activeElement?.textContent === "Оплатить");
      expect((await widget.getAttribute("data-skin")) === "mini", "skin mini");
      await widget.getByText("398 RUB").waitFor();
      expect((await widget.getByLabel("E-mail для чека").inputValue()) === "card-donor@example.com", "the receipt email goes to the form");
      await screen(page, "donor-card-widget-ru-desktop");
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === "/ru/ecommerce/checkout/success");
      const back = page.getByTestId("checkout-return");
      await back.locator('[data-testid=payment-note][data-state="paid"]').waitFor({ timeout: 20000 });
      await back.getByTestId("order-status").getByText("Оплачен").waitFor();
      await back.getByText(/398 ₽/).first().waitFor();
      await noOrderId(page, "the success page after the card form");

      await watcher.page.waitForFunction((n) => Number((document.querySelector("[data-testid=progress-count]")?.textContent ?? "").replace(/\D/g, "")) >= n, before + 2, { timeout: 8000 });
      const after2 = await shownCount(watcher.page);
      expect(after2 === before + 2, `the open page's counter went from ${before} to ${after2}, not to ${before + 2}`);
      for (const c of [w, watcher]) expect(c.problems.length === 0, c.problems.join("\n"));
      await watcher.context.close();
      await w.context.close();
    },
  ],
  [
    "shop, buyer: the product page pays in tenge through TipTop Pay; the success page (en, phone) gets to 'Paid'; My orders and the order page show a number or 'Your order', and dates",
    async (stack, s) => {
      const w = await watchedContext(stack, { viewport: PHONE });
      s.donor = w;
      const { page } = w;
      await page.goto("/en/ecommerce/products/tree");
      const buy = page.getByTestId("product-buy");
      await buy.getByText("— Kazakh cards (TipTopPay)").waitFor();
      await buy.getByText("— Russian cards").waitFor();
      await buy.getByLabel(/995 ₸/).check();
      await buy.getByRole("button", { name: "More trees" }).click();
      await buy.getByTestId("product-total").getByText(/1,990 ₸/).waitFor();
      await buy.getByLabel("Email for the receipt").fill("buyer@example.com");
      await screen(page, "buyer-product-en-mobile");
      await buy.getByRole("button", { name: "Buy now" }).click();
      await page.waitForURL((u) => u.origin === stack.fakes.tiptoppay.url);
      await page.getByRole("button", { name: /pay/i }).click();
      await page.waitForURL((u) => u.pathname === "/en/ecommerce/checkout/success");
      await page.locator('[data-testid=payment-note][data-state="paid"]').waitFor({ timeout: 20000 });
      await page.getByTestId("checkout-return").getByTestId("order-status").getByText("Paid").waitFor();
      await page.getByTestId("checkout-return").getByText(/1,990 ₸/).waitFor();
      await noOrderId(page, "the success page");
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no horizontal overflow at 390 px");
      await screen(page, "donor-success-en-mobile");

      for (const [lang, viewport] of [
        ["en", PHONE],
        ["ru", DESKTOP],
        ["ru", PHONE],
        ["en", DESKTOP],
      ]) {
        await page.setViewportSize(viewport);
        const size = viewport === PHONE ? "mobile" : "desktop";
        await page.goto(`/${lang}/ecommerce/orders`);
        const list = page.getByTestId("orders-list");
        const card = list.getByTestId("order-card").first();
        await card.waitFor();
        await card.getByTestId("order-date").getByText(lang === "ru" ? /\d{4} г\./ : /, \d{4}/).waitFor();
        await card.getByTestId("order-status").getByText(lang === "ru" ? "Оплачен" : "Paid").waitFor();
        await noOrderId(page, `My orders (${lang})`);
        await screen(page, `buyer-my-orders-${lang}-${size}`);
        await card.getByTestId("order-title").getByRole("link").click();
        await page.waitForURL((u) => /^\/(en|ru)\/ecommerce\/orders\/[0-9a-f-]{36}$/.test(u.pathname));
        const order = page.getByTestId("order-page");
        await order.waitFor();
        const history = order.getByTestId("order-history");
        await history.getByText(lang === "ru" ? "Оплачен" : "Paid").waitFor();
        await history.getByText(lang === "ru" ? "Заказ оформлен" : "Order placed").waitFor();
        await order.getByTestId("order-total").getByText(/1[\s,]990 ₸/).waitFor();
        // The payment, and the receipt the mails promise on this page (an image that answers).
        const payment = order.locator('[data-testid=order-payment][data-status="paid"]');
        await payment.getByText(/TipTopPay · 1[\s,]990 ₸/).waitFor();
        expect((await order.getByTestId("order-pay").count()) === 0, "a paid invoice offers no payment");
        const receipt = order.getByRole("link", { name: lang === "ru" ? "Открыть квитанцию" : "Open the receipt" });
        const answer = await page.evaluate(async (href) => {
          const r = await fetch(href);
          return `${r.status} ${r.headers.get("content-type")}`;
        }, await receipt.getAttribute("href"));
        expect(answer === "200 image/png", `the receipt answers: ${answer}`);
        const title = await order.getByTestId("order-title").textContent();
        expect(/^(Order|Заказ) № \d+$/.test(title) || title === (lang === "ru" ? "Ваш заказ" : "Your order"), `the order is titled by its number or neutrally: ${title}`);
        await noOrderId(page, `the order page (${lang})`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no horizontal overflow");
        await screen(page, `buyer-order-${lang}-${size}`);
      }
      s.donorOrderUrl = new URL(page.url()).pathname;
      expect(w.problems.length === 0, w.problems.join("\n"));
    },
  ],
  [
    "shop, buyer: someone else opening the order's page is told it is not theirs and offered sign-in",
    async (stack, s) => {
      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto(s.donorOrderUrl.replace(/^\/en\//, "/ru/"));
      await page.getByTestId("sign-in-prompt").getByText("Войдите, чтобы увидеть этот заказ.").waitFor();
      const signIn = page.getByTestId("sign-in-prompt").getByRole("link", { name: "Войти" });
      expect((await signIn.getAttribute("href")).includes(`redirect=${encodeURIComponent(s.donorOrderUrl.replace(/^\/en\//, "/ru/"))}`), "sign-in comes back to the order");
      await noOrderId(page, "the order page for a stranger");
      await screen(page, "buyer-order-stranger-ru-desktop");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "shop, buyer: the cart sheet is titled 'Cart'/'Корзина', shows no id, and closes by its button (keyboard too) and by Escape",
    async (stack, s) => {
      const { page } = s.donor;
      for (const [lang, viewport] of [
        ["en", PHONE],
        ["ru", DESKTOP],
      ]) {
        await page.setViewportSize(viewport);
        const size = viewport === PHONE ? "mobile" : "desktop";
        const name = lang === "en" ? "Cart" : "Корзина";
        await page.goto(`/${lang}/ecommerce/products/tree`);
        await page.getByTestId("product-buy").getByTestId("add-to-cart").click();
        const open = await cartButton(page);
        await open.getByTestId("cart-badge").waitFor();
        await open.click();
        const sheet = page.getByRole("dialog", { name });
        await sheet.getByTestId("order-card").first().waitFor();
        await noOrderId(page, `the cart sheet (${lang})`);
        await screen(page, `buyer-cart-${lang}-${size}`);
        await sheet.getByRole("button", { name: lang === "en" ? "Close the cart" : "Закрыть корзину" }).click();
        await sheet.waitFor({ state: "detached" });
        await (await cartButton(page)).click();
        await sheet.waitFor();
        await page.keyboard.press("Escape");
        await sheet.waitFor({ state: "detached" });
        // By keyboard: the close button is reached with Tab and pressed with Enter.
        await (await cartButton(page)).focus();
        await page.keyboard.press("Enter");
        await sheet.waitFor();
        await tabTo(page, sheet.getByTestId("cart-close"), 30);
        await page.keyboard.press("Enter");
        await sheet.waitFor({ state: "detached" });
      }
      expect(s.donor.problems.length === 0, s.donor.problems.join("\n"));
      await s.donor.context.close();
    },
  ],
  [
    "shop, buyer: a keyboard-only cart checkout — add to the cart, open it, one more, the email, check out, pay — ends on 'Оплачен'",
    async (stack) => {
      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      await page.goto("/ru/ecommerce/products/tree");
      const buy = page.getByTestId("product-buy");
      await buy.getByTestId("add-to-cart").waitFor();
      await tabTo(page, buy.getByTestId("add-to-cart"));
      await page.keyboard.press("Enter");
      const open = page.getByTestId("cart-button").filter({ visible: true });
      await open.getByTestId("cart-badge").getByText("1").waitFor();
      // Back to the header's cart (Shift+Tab), Enter opens the sheet with the focus inside it.
      for (let i = 0; i < 300 && !(await open.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Enter");
      const sheet = page.getByRole("dialog", { name: "Корзина" });
      await sheet.getByTestId("order-card").first().waitFor();
      expect(await sheet.evaluate((el) => el.contains(document.activeElement)), "the focus is in the cart");
      // '+' on the line, by Tab and Space: the cart saves 2.
      await tabTo(page, sheet.getByRole("button", { name: "Больше деревьев" }).first(), 40);
      await page.keyboard.press("Space");
      await sheet.getByTestId("cart-totals").getByText(/398 ₽/).waitFor();
      // CloudPayments (a Russian bank) by the keyboard: the select takes a typed name.
      await tabTo(page, sheet.getByTestId("provider"), 40);
      await page.keyboard.type("Cloud");
      await page.waitForFunction(() => document.querySelector("[data-testid=cart-sheet] [data-testid=provider]")?.value === "cloudpayments");
      await tabTo(page, sheet.getByTestId("checkout-email"), 40);
      await page.keyboard.type("cart-buyer@example.com");
      await page.keyboard.press("Tab");
      expect((await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))) === "checkout", "Tab goes from the email to 'Оформить'");
      await screen(page, "buyer-cart-keyboard-ru-desktop");
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.origin === stack.fakes.cloudpayments.url);
      await tabTo(page, page.getByRole("button", { name: /pay/i }), 40);
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === "/ru/ecommerce/checkout/success");
      const back = page.getByTestId("checkout-return");
      await back.locator('[data-testid=payment-note][data-state="paid"]').waitFor({ timeout: 20000 });
      await back.getByTestId("order-status").getByText("Оплачен").waitFor();
      await back.getByText(/398 ₽/).waitFor();
      await noOrderId(page, "the success page after the cart");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
];
