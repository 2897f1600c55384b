// The public site as a visitor meets it, in ru and en, at 1366 × 900 and 390 × 844: a guest (the
// subject a donation attempt starts) is shown as a visitor; the header keeps to one line from
// 1024 px; the mobile menu carries the account's entries and closes on Escape; the footer's
// account entries; the skip link, the focus moved to an anchor's target, a visible focus on every
// control; nothing wider than a phone.
import { expect, screen, watchedContext } from "./harness.mjs";

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const PERSON = { email: "vera.lesnaya.volunteer@forplanet.example", password: "visitor password 123" };
const WORDS = {
  ru: { signIn: "Войти", signOut: "Выйти", register: "Регистрация", account: "Аккаунт", settings: "Настройки", orders: "Мои заказы", chats: "Чаты", blog: "Блог", faq: "Вопросы", plant: "Посадить дерево" },
  en: { signIn: "Sign in", signOut: "Sign out", register: "Register", account: "Account", settings: "Settings", orders: "My orders", chats: "Chats", blog: "Blog", faq: "FAQ", plant: "Plant a tree" },
};

const header = (page) => page.locator('header[data-variant^="navbar"]');

/** Starts the anonymous session a checkout starts, from the page, and reloads. */
async function becomeGuest(page, lang) {
  await page.goto(`/${lang}/`);
  const status = await page.evaluate(async () => (await fetch("/api/rbac/subjects/authentication/init", { method: "POST" })).status);
  expect(status === 201 || status === 200, `init answered ${status}`);
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** Registers PERSON once (from the test, not the page: a second registration's 409 is no page error). */
async function registerPerson(stack) {
  const res = await fetch(`${stack.base}/api/rbac/subjects/authentication/email-and-password/registration`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login: PERSON.email, password: PERSON.password, roles: ["user"] }),
  });
  expect(res.status === 201 || res.status === 409, `registration answered ${res.status}`);
}

/** Signs PERSON in from the page (the session's cookies are set) and reloads. */
async function becomePerson(page, lang) {
  await page.goto(`/${lang}/`);
  const status = await page.evaluate(async ({ email, password }) => {
    const auth = await fetch("/api/rbac/subjects/authentication/email-and-password/authentication", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ login: email, password }) });
    return auth.status;
  }, PERSON);
  expect(status === 201, `sign-in answered ${status}`);
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** The header of a guest or a visitor: 'Sign in', no id, no role, no 'Sign out'. */
async function showsVisitorHeader(page, lang, phone) {
  const w = WORDS[lang];
  const bar = header(page);
  if (phone) {
    await bar.getByTestId("menu-toggle").waitFor();
  } else {
    await bar.getByRole("button", { name: w.signIn, exact: true }).waitFor();
    expect((await bar.getByTestId("account-menu").count()) === 0, "no account menu for a guest");
  }
  const text = await bar.innerText();
  expect(!UUID.test(text), `no id in the header: ${text}`);
  expect(!/\bguest\b|гость/i.test(text), `no role in the header: ${text}`);
  expect(!text.includes(w.signOut), `no '${w.signOut}' in the header: ${text}`);
}

/** Opens the mobile menu: the sheet, named by its title. */
async function openMenu(page) {
  await page.getByTestId("menu-toggle").click();
  const menu = page.getByTestId("mobile-menu");
  await menu.waitFor();
  return menu;
}

/** Escape closes the menu and gives the focus back to the menu button. */
async function escapeCloses(page) {
  await page.keyboard.press("Escape");
  await page.getByTestId("mobile-menu").waitFor({ state: "detached" });
  await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "menu-toggle");
}

/** The page is no wider than the viewport. */
async function noSidewaysScroll(page, width) {
  const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scroll <= width, `the page is ${scroll} px wide at ${width} px`);
}

/**
 * The navbar keeps to one line: the bar is 64 px tall, every link of the main menu sits on one
 * line (one top, the menu one line high) and nothing is cut off (the links fit their box).
 */
async function navOnOneLine(page, label) {
  const m = await page.evaluate(() => {
    const bar = document.querySelector("[data-testid=navbar-bar]");
    const links = document.querySelector("[data-testid=navbar-links]");
    const actions = document.querySelector("[data-testid=navbar-actions]");
    const tops = [...links.querySelectorAll("a")].map((a) => Math.round(a.getBoundingClientRect().top));
    const lineHeight = Math.max(...[...links.querySelectorAll("a")].map((a) => a.getBoundingClientRect().height));
    return {
      bar: bar.getBoundingClientRect().height,
      links: links.getBoundingClientRect().height,
      lineHeight,
      tops: [...new Set(tops)],
      count: tops.length,
      overflow: links.scrollWidth - links.clientWidth,
      actionsOverflow: actions.scrollWidth - actions.clientWidth,
      actionsTops: [...new Set([...actions.children].filter((c) => c.getBoundingClientRect().width > 0).map((c) => Math.round(c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2)))],
    };
  });
  expect(m.count === 5, `${label}: five links (${m.count})`);
  expect(m.bar === 64, `${label}: the bar is one line (64 px, is ${m.bar})`);
  expect(m.tops.length === 1 && m.links <= m.lineHeight + 1, `${label}: the links are one line (${JSON.stringify(m)})`);
  expect(m.overflow <= 0 && m.actionsOverflow <= 0, `${label}: nothing cut off (${JSON.stringify(m)})`);
  expect(m.actionsTops.every((t) => Math.abs(t - m.actionsTops[0]) <= 2), `${label}: the actions are one line (${JSON.stringify(m)})`);
}

/**
 * What the focused element shows: whether it matches :focus-visible, the thickness of its ring
 * (outline and box-shadow), and the best contrast of a ring colour against the background behind
 * the element (the nearest ancestor with one).
 */
export function focusReport() {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  // Any CSS colour (rgb(), oklch() as Tailwind's palette computes to) as 8-bit sRGB, by the canvas.
  const COLOR = /(?:rgba?|oklch|oklab|lab|lch|hsla?|color)\([^)]*\)/;
  const canvas = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const rgba = (s) => {
    const m = COLOR.exec(s);
    if (!m) return null;
    canvas.clearRect(0, 0, 1, 1);
    canvas.fillStyle = m[0].replace(/\bnone\b/g, "0");
    canvas.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = canvas.getImageData(0, 0, 1, 1).data;
    return { r, g, b, a: a / 255 };
  };
  const over = (c, bg) => ({ r: c.r * c.a + bg.r * (1 - c.a), g: c.g * c.a + bg.g * (1 - c.a), b: c.b * c.a + bg.b * (1 - c.a), a: 1 });
  const lum = ({ r, g, b }) => {
    const f = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const contrast = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  let bg = { r: 255, g: 255, b: 255, a: 1 };
  for (let p = el.parentElement; p; p = p.parentElement) {
    const c = rgba(getComputedStyle(p).backgroundColor);
    if (c && c.a >= 0.5) {
      bg = over(c, { r: 255, g: 255, b: 255, a: 1 });
      break;
    }
  }
  const cs = getComputedStyle(el);
  const rings = [];
  const outline = parseFloat(cs.outlineWidth) || 0;
  if (cs.outlineStyle !== "none" && outline > 0) rings.push({ color: rgba(cs.outlineColor), width: outline });
  if (cs.boxShadow && cs.boxShadow !== "none") {
    for (const part of cs.boxShadow.split(/,(?![^(]*\))/)) {
      const color = rgba(part);
      const px = [...part.replace(COLOR, "").matchAll(/(-?\d+(?:\.\d+)?)px/g)].map((m) => Number(m[1]));
      const spread = px[3] ?? 0;
      if (color && color.a > 0 && spread > 0) rings.push({ color, width: spread });
    }
  }
  const best = Math.max(0, ...rings.map((r) => contrast(over(r.color, bg), bg)));
  const width = Math.max(0, ...rings.map((r) => r.width));
  const name = (el.getAttribute("aria-label") || el.textContent || el.getAttribute("name") || el.id || "").trim().slice(0, 40);
  return { tag: el.tagName.toLowerCase(), testid: el.getAttribute("data-testid"), name, visible: el.matches(":focus-visible"), best: Math.round(best * 100) / 100, width, outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`, shadow: cs.boxShadow };
}

export const visitorSpecs = [
  [
    "visitor: after a donation attempt a guest's header shows 'Войти', no id, role or 'Выйти' (ru and en, desktop and phone); the cart stays",
    async (stack) => {
      const w = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = w;
      // A real attempt: the email typed at checkout makes the guest's contact identity.
      await page.goto("/ru/#donate");
      const d = page.getByTestId("tree-donation");
      await d.getByTestId("donation-email").fill("donor.visitor@example.com");
      await d.getByRole("button", { name: "Оплатить" }).click();
      await page.waitForURL((u) => u.origin === stack.fakes.cloudpayments.url);
      await page.goto("/ru/");
      const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
      expect(me && me.identities.every((i) => i.provider === "email"), `the attempt made a guest: ${JSON.stringify(me?.identities)}`);
      await showsVisitorHeader(page, "ru", false);
      await header(page).getByTestId("cart-button").waitFor();
      await screen(page, "visitor-guest-home-ru-desktop");
      await page.goto("/en/");
      await showsVisitorHeader(page, "en", false);
      await screen(page, "visitor-guest-home-en-desktop");
      // The settings are an account's: a guest is asked to sign in.
      await page.goto("/en/rbac/subjects/settings");
      await page.getByText("Sign in to see your settings.").waitFor();
      expect(w.problems.length === 0, w.problems.join("\n"));
      await w.context.close();

      for (const lang of ["ru", "en"]) {
        const p = await watchedContext(stack, { viewport: PHONE });
        await becomeGuest(p.page, lang);
        await showsVisitorHeader(p.page, lang, true);
        const menu = await openMenu(p.page);
        const entries = menu.getByTestId("account-entries");
        expect((await entries.getAttribute("data-session")) === "guest", "the menu knows a guest");
        await entries.getByRole("link", { name: WORDS[lang].signIn, exact: true }).waitFor();
        await entries.getByRole("link", { name: WORDS[lang].register, exact: true }).waitFor();
        const text = await menu.innerText();
        expect(!UUID.test(text) && !text.includes(WORDS[lang].signOut), `the menu shows no id and no '${WORDS[lang].signOut}': ${text}`);
        await menu.getByTestId("cart-button").waitFor();
        await screen(p.page, `visitor-guest-menu-${lang}-mobile`);
        await escapeCloses(p.page);
        // An in-page link of the menu closes it and takes the focus to its target, not back to the button.
        const faq = await openMenu(p.page);
        await faq.getByRole("link", { name: WORDS[lang].faq, exact: true }).click();
        await faq.waitFor({ state: "detached" });
        await p.page.waitForFunction(() => document.activeElement?.id === "faq", undefined, { timeout: 3000 });
        await noSidewaysScroll(p.page, PHONE.width);
        await screen(p.page, `visitor-guest-home-${lang}-mobile`);
        expect(p.problems.length === 0, p.problems.join("\n"));
        await p.context.close();
      }
    },
  ],
  [
    "visitor: the header keeps to one line at 1024 and 1366 px in ru and en, for a visitor and for a signed-in person",
    async (stack) => {
      await registerPerson(stack);
      for (const who of ["visitor", "person"]) {
        for (const width of [1024, 1366]) {
          const w = await watchedContext(stack, { viewport: { width, height: 900 } });
          if (who === "person") await becomePerson(w.page, "ru");
          for (const lang of ["ru", "en"]) {
            await w.page.goto(`/${lang}/`);
            if (who === "person") await header(w.page).getByTestId("account-menu").waitFor();
            else await header(w.page).getByRole("button", { name: WORDS[lang].signIn, exact: true }).waitFor();
            await navOnOneLine(w.page, `${who} at ${width} px in ${lang}`);
          }
          expect(w.problems.length === 0, w.problems.join("\n"));
          await w.context.close();
        }
      }
    },
  ],
  [
    "visitor: a signed-in person's header shows their address (never an id), the phone menu their account's entries, the footer 'Account' and 'Sign out'",
    async (stack) => {
      await registerPerson(stack);
      for (const lang of ["ru", "en"]) {
        const w = WORDS[lang];
        const d = await watchedContext(stack, { viewport: DESKTOP });
        await becomePerson(d.page, lang);
        const trigger = header(d.page).getByTestId("account-menu");
        await trigger.waitFor();
        expect((await trigger.getAttribute("title")) === PERSON.email, "the account button names the person by their address");
        const text = await header(d.page).innerText();
        expect(!UUID.test(text) && !text.includes(w.signIn), `no id, no '${w.signIn}' in the header: ${text}`);
        const footer = d.page.locator('footer[data-variant^="footer"]');
        await footer.getByRole("link", { name: w.account, exact: true }).waitFor();
        await footer.getByRole("button", { name: w.signOut, exact: true }).waitFor();
        expect((await footer.getByRole("link", { name: w.signIn, exact: true }).count()) === 0, `no '${w.signIn}' in the footer`);
        expect((await footer.getByRole("link", { name: w.register, exact: true }).count()) === 0, `no '${w.register}' in the footer`);
        await trigger.click();
        await d.page.getByRole("menu").getByText(PERSON.email).waitFor();
        expect(!UUID.test(await d.page.getByRole("menu").innerText()), "no id in the account menu");
        await d.page.keyboard.press("Escape");
        await screen(d.page, `visitor-person-home-${lang}-desktop`);
        expect(d.problems.length === 0, d.problems.join("\n"));
        await d.context.close();

        const p = await watchedContext(stack, { viewport: PHONE });
        await becomePerson(p.page, lang);
        await p.page.getByTestId("account-menu").waitFor({ state: "attached" });
        let menu = await openMenu(p.page);
        const entries = menu.getByTestId("account-entries");
        expect((await entries.getAttribute("data-session")) === "person", "the menu knows a person");
        for (const name of [w.settings, w.orders, w.chats]) await entries.getByRole("link", { name, exact: true }).waitFor();
        await entries.getByRole("button", { name: w.signOut, exact: true }).waitFor();
        expect((await menu.getByRole("link", { name: w.signIn, exact: true }).count()) === 0, `no '${w.signIn}' in a person's menu`);
        await screen(p.page, `visitor-person-menu-${lang}-mobile`);
        await escapeCloses(p.page);
        // A navigation closes it too.
        menu = await openMenu(p.page);
        await menu.getByRole("link", { name: w.blog, exact: true }).click();
        await p.page.waitForURL((u) => u.pathname === `/${lang}/blog`);
        await menu.waitFor({ state: "detached" });
        await p.page.goto(`/${lang}/`);
        await noSidewaysScroll(p.page, PHONE.width);
        await screen(p.page, `visitor-person-home-${lang}-mobile`);
        // The address on the settings keeps to one line at a phone's width.
        await p.page.goto(`/${lang}/rbac/subjects/settings`);
        const address = p.page.getByTestId("identity-address").first();
        await address.waitFor();
        const box = await address.evaluate((e) => ({ h: e.getBoundingClientRect().height, line: parseFloat(getComputedStyle(e).lineHeight), title: e.getAttribute("title") }));
        expect(box.h <= box.line * 1.5 && box.title === PERSON.email, `the address is one line, whole in its tooltip: ${JSON.stringify(box)}`);
        await noSidewaysScroll(p.page, PHONE.width);
        await screen(p.page, `visitor-person-settings-${lang}-mobile`);
        expect(p.problems.length === 0, p.problems.join("\n"));
        await p.context.close();
      }
    },
  ],
  [
    "visitor: the skip link is the first Tab stop and moves the focus to main; 'Посадить дерево' moves it to the donation form; every control shows its focus at ≥ 3:1",
    async (stack) => {
      for (const lang of ["ru", "en"]) {
        const w = await watchedContext(stack, { viewport: DESKTOP });
        const { page } = w;
        await page.goto(`/${lang}/`);
        await page.keyboard.press("Tab");
        const skip = page.getByTestId("skip-link");
        expect(await skip.evaluate((e) => e === document.activeElement), "the skip link is the first Tab stop");
        const box = await skip.boundingBox();
        expect(box && box.width > 40 && box.height > 20, `the skip link shows when focused: ${JSON.stringify(box)}`);
        await page.keyboard.press("Enter");
        await page.waitForFunction(() => document.activeElement?.tagName === "MAIN");
        await page.keyboard.press("Tab");
        expect(await page.evaluate(() => !!document.activeElement?.closest("main")), "Tab goes on inside main, past the header");

        // The hero's in-page link to the form.
        const plant = page.locator("main").getByRole("link", { name: WORDS[lang].plant, exact: true }).first();
        await plant.focus();
        await page.keyboard.press("Enter");
        // The anchor is the form's heading block: the focus lands there, and Tab goes on into the form.
        await page.waitForFunction(() => document.activeElement?.id === "donate");
        await page.keyboard.press("Tab");
        expect(await page.evaluate(() => !!document.activeElement?.closest("[data-testid=tree-donation]")), "Tab goes on inside the donation form");

        // Every Tab stop of the page, from the top, shows its focus.
        await page.goto(`/${lang}/`);
        const failures = [];
        let stops = 0;
        for (let i = 0; i < 300; i++) {
          await page.keyboard.press("Tab");
          const r = await page.evaluate(focusReport);
          if (!r || (i > 0 && r.testid === "skip-link")) break;
          stops += 1;
          if (!r.visible || r.width < 2 || r.best < 3) failures.push(r);
        }
        expect(stops > 40, `the walk reached the page's controls (${stops})`);
        expect(failures.length === 0, `focus not visible at 3:1 on:\n${failures.map((f) => JSON.stringify(f)).join("\n")}`);
        // The quick amounts and 'Pay' on the dark green of the donation form, named in the review.
        await page.goto(`/${lang}/#donate`);
        await page.keyboard.press("Tab");
        for (const target of [page.getByTestId("amounts-desktop").getByRole("button").first(), page.getByTestId("pay")]) {
          await target.focus();
          const r = await page.evaluate(focusReport);
          expect(r && r.visible && r.best >= 3 && r.width >= 2, `focus on the donation form: ${JSON.stringify(r)}`);
        }
        await screen(page, `visitor-focus-donation-${lang}`);
        expect(w.problems.length === 0, w.problems.join("\n"));
        await w.context.close();
      }
    },
  ],
  [
    "visitor: the home page has no sideways scroll at 390 px; the login screen offers no wallet in a browser without one",
    async (stack) => {
      for (const lang of ["ru", "en"]) {
        const p = await watchedContext(stack, { viewport: PHONE });
        await p.page.goto(`/${lang}/`);
        await noSidewaysScroll(p.page, PHONE.width);
        const map = p.page.getByTestId("map-scroll");
        await map.scrollIntoViewIfNeeded();
        const widths = await map.evaluate((e) => ({ box: e.clientWidth, map: e.scrollWidth }));
        expect(widths.map >= 640 && widths.box < widths.map, `the map is shown wide, in a box that scrolls: ${JSON.stringify(widths)}`);
        await screen(p.page, `visitor-home-${lang}-mobile`);
        await p.page.goto(`/${lang}/rbac/subject/authentication/select-method`);
        await p.page.locator("main").getByRole("button", { name: WORDS[lang].signIn, exact: true }).waitFor();
        const text = await p.page.locator("main").innerText();
        expect(!/Ethereum|EVM/.test(text), `no wallet method without a wallet: ${text}`);
        await screen(p.page, `visitor-login-${lang}-mobile`);
        expect(p.problems.length === 0, p.problems.join("\n"));
        await p.context.close();
      }
    },
  ],
];

visitorSpecs.push([
  "visitor: searches the site from the header — 'деревья' (ru) finds the article and the products by their word forms with the words marked, 'planting' (en) the English title, words of an article's text (ru, en) its snippet; on a phone from the menu; a word nothing holds says so",
  async (stack) => {
    const w = await watchedContext(stack, { viewport: DESKTOP });
    const { page } = w;
    await page.goto("/ru/");
    await header(page).getByRole("link", { name: "Поиск", exact: true }).click();
    await page.waitForURL("**/ru/search");
    const box = page.getByRole("searchbox", { name: "Поиск по сайту" });
    await box.fill("деревья");
    await box.press("Enter");
    await page.waitForURL((u) => u.pathname === "/ru/search" && u.searchParams.get("q") === "деревья");
    const results = page.getByTestId("search-result");
    await results.first().waitFor();
    const article = results.filter({ hasText: "Как мы сажаем деревья" });
    await article.waitFor();
    expect((await article.locator("mark").first().textContent()) === "деревья", "the word found is marked in the title, whole");
    await results.filter({ hasText: "Роща из 10 деревьев" }).waitFor();
    await results.filter({ hasText: "Дерево" }).first().waitFor();
    await screen(page, "visitor-search-ru-desktop");
    await article.getByRole("link").click();
    await page.waitForURL("**/ru/blog/articles/how-we-plant");
    await page.getByRole("heading", { name: "Как мы сажаем деревья", level: 1 }).waitFor();
    // English word forms, English titles; an address typed with the query opens with its results.
    await page.goto("/en/search?q=planting");
    await page.getByTestId("search-result").filter({ hasText: "How we plant trees" }).waitFor();
    await screen(page, "visitor-search-en-desktop");
    // Words only the article's text holds (not its title): found, marked in the snippet.
    for (const [lang, q, title, mark] of [
      ["ru", "саженцами", "Как мы сажаем деревья", "саженцы"],
      ["en", "erosion", "Why the planet needs forests", "erosion"],
    ]) {
      await page.goto(`/${lang}/search?q=${encodeURIComponent(q)}`);
      const hit = page.getByTestId("search-result").filter({ hasText: title });
      await hit.waitFor();
      const marks = await hit.locator("mark").allTextContents();
      expect(marks.some((m) => m.toLowerCase() === mark), `${q}: the word of the text is marked (${marks.join(", ")})`);
    }
    await screen(page, "visitor-search-in-text-en");
    // A typo finds the close spelling, marked as the site spells it, and says so (en and ru).
    await page.goto("/en/search?q=forrests");
    const close = page.getByTestId("search-result").filter({ hasText: "Why the planet needs forests" });
    await close.waitFor();
    await page.getByTestId("search-fuzzy").getByText("Nothing matches “forrests” exactly").waitFor();
    expect((await close.locator("mark").first().textContent()) === "forests", "the spelling found is marked");
    await screen(page, "visitor-search-typo-en");
    await page.goto("/ru/search?q=деревъя");
    await page.getByTestId("search-result").filter({ hasText: "Как мы сажаем деревья" }).waitFor();
    await page.getByTestId("search-fuzzy").getByText("Точных совпадений с «деревъя» нет").waitFor();
    await screen(page, "visitor-search-typo-ru");
    await page.goto("/en/search?q=hippopotamus");
    await page.getByTestId("search-none").waitFor();
    expect(w.problems.length === 0, w.problems.join("\n"));
    await w.context.close();

    const p = await watchedContext(stack, { viewport: PHONE });
    await p.page.goto("/ru/");
    const menu = await openMenu(p.page);
    await menu.getByRole("link", { name: "Поиск", exact: true }).click();
    await p.page.waitForURL("**/ru/search");
    const phoneBox = p.page.getByRole("searchbox", { name: "Поиск по сайту" });
    await phoneBox.fill("лес");
    await phoneBox.press("Enter");
    await p.page.getByTestId("search-result").filter({ hasText: "Зачем планете леса" }).waitFor();
    await noSidewaysScroll(p.page, PHONE.width);
    await screen(p.page, "visitor-search-ru-mobile");
    expect(p.problems.length === 0, p.problems.join("\n"));
    await p.context.close();
  },
]);
