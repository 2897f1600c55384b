// Both languages end to end: the demo site in English shows no Cyrillic (text, alt, title,
// aria-label, placeholder) except the Russian bank details it keeps as registered, and Russian
// pages say validation and server errors in Russian.
import { expect, watchedContext } from "./harness.mjs";

const AUTH = "rbac/subject/authentication";
const EN_PAGES = ["/en/", "/en/blog", "/en/blog/articles/how-we-plant", "/en/ecommerce", "/en/ecommerce/products/tree", `/en/${AUTH}/select-method`, `/en/${AUTH}/email-and-password/registration`];

/**
 * Cyrillic the page shows or announces. Deliberately Russian content is marked `lang="ru"`; the
 * only such content allowed is a requisite value (`data-requisite`: a Russian bank's or the
 * foundation's legal name in the bank details) — any other `lang="ru"` element is reported too.
 */
async function cyrillic(page) {
  return page.evaluate(() => {
    const CYRILLIC = /[\u0400-\u04FF]/;
    const found = [];
    const where = (el) => `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.dataset.testid ? ` data-testid=${el.dataset.testid}` : ""}>`;
    const russian = (el) => el.closest('[lang="ru"]');
    for (const el of document.body.querySelectorAll('[lang="ru"]')) if (!el.matches("[data-requisite]")) found.push(`lang="ru" on ${where(el)} outside the allowed requisite values`);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest("script, style, template, noscript") || !CYRILLIC.test(n.textContent ?? "") || russian(el)) continue;
      found.push(`text in ${where(el)}: ${n.textContent.trim().slice(0, 80)}`);
    }
    for (const attr of ["alt", "title", "aria-label", "placeholder"]) {
      for (const el of document.body.querySelectorAll(`[${attr}]`)) {
        const v = el.getAttribute(attr) ?? "";
        if (CYRILLIC.test(v) && !russian(el)) found.push(`${attr} of ${where(el)}: ${v.slice(0, 80)}`);
      }
    }
    return found;
  });
}

/** Waits until React has hydrated `locator`'s element (its handlers are attached): a click before
 * that would submit a server-rendered form natively. */
async function hydrated(locator) {
  const el = await locator.elementHandle();
  await locator.page().waitForFunction((e) => Object.keys(e).some((k) => k.startsWith("__reactProps")), el);
}

async function noCyrillic(page, what) {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  expect((await page.evaluate(() => document.documentElement.lang)) === "en", `${what}: <html lang="en">`);
  const found = await cyrillic(page);
  expect(found.length === 0, `${what} shows Cyrillic:\n  ${found.join("\n  ")}`);
}

export const i18nSpecs = [
  [
    "the demo site in English shows no Cyrillic outside the Russian bank details",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page } = w;
      for (const path of EN_PAGES) {
        await page.goto(path);
        await noCyrillic(page, path);
      }
      // The donation with a foreign bank: its options and the bank details it shows.
      await page.goto("/en/#donate");
      const d = page.getByTestId("tree-donation");
      await hydrated(d.getByLabel("Foreign bank"));
      await d.getByLabel("Foreign bank").check();
      await d.getByTestId("foreign").waitFor();
      await noCyrillic(page, "/en/ with the foreign bank chosen");
      expect((await page.locator('[lang="ru"][data-requisite]').count()) >= 1, "the Russian bank details are marked lang=ru");
      // Validation messages of the registration form.
      await page.goto(`/en/${AUTH}/email-and-password/registration`);
      const form = page.getByRole("form", { name: "Create an account" });
      await hydrated(form);
      await form.getByLabel("Email").fill("not an email");
      await form.getByLabel("Password").fill("short");
      await form.getByRole("button", { name: "Create an account" }).click();
      await form.getByText("At least 8 characters").waitFor();
      await noCyrillic(page, "the registration form with errors");
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
  [
    "Russian pages say validation messages, server errors and toasts in Russian",
    async (stack) => {
      const w = await watchedContext(stack);
      const { page } = w;
      w.expectStatus(401, 422);
      await page.goto(`/ru/${AUTH}/email-and-password/registration`);
      const reg = page.getByRole("form", { name: "Создать аккаунт" });
      await hydrated(reg);
      await reg.getByRole("button", { name: "Создать аккаунт" }).click();
      await reg.getByText("Введите корректный email, например name@example.com").waitFor();
      await reg.getByText("Не короче 8 символов").waitFor();
      // A password the server refuses: its message comes from the catalogue.
      await reg.getByLabel("Email").fill("common@e2e.test");
      await reg.getByLabel("Пароль").fill("password");
      await reg.getByRole("button", { name: "Создать аккаунт" }).click();
      await reg.getByText("Это один из самых распространённых паролей; выберите другой.").first().waitFor();
      await page.goto(`/ru/${AUTH}/select-method`);
      const login = page.getByRole("form", { name: "Вход" });
      await hydrated(login);
      await login.getByLabel("Email").fill("nobody@e2e.test");
      await login.getByLabel("Пароль", { exact: true }).fill("not the password");
      await login.getByRole("button", { name: "Войти" }).click();
      await login.getByText("Неверный email или пароль.").waitFor();
      // The CRM form's toast.
      await page.goto("/ru/#contact");
      const crm = page.getByTestId("crm-form");
      await hydrated(crm);
      await crm.getByRole("button", { name: "Отправить" }).click();
      await crm.getByText("Обязательное поле").first().waitFor();
      await crm.getByLabel("Имя").fill("Вера");
      await crm.getByLabel("Почта").fill("vera@e2e.test");
      await crm.getByLabel("Сколько деревьев хотите посадить").fill("3");
      await crm.getByLabel("Сообщение").fill("Хочу посадить дерево");
      await crm.getByRole("button", { name: "Отправить" }).click();
      await page.locator("[data-sonner-toast]").getByText("Форма отправлена").waitFor();
      const region = await page.locator("section[aria-label]").filter({ has: page.locator("[data-sonner-toaster]") }).getAttribute("aria-label");
      expect(region?.startsWith("Уведомления"), `the toasts' region is labelled in Russian: ${region}`);
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();
    },
  ],
];
