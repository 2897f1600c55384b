// Editor tasks, in Russian, as a site's editor does them (issue 49): answer a form submission from
// the inbox, and find an order by its number and by its buyer's email and move it on. The start
// page says what waits. A real browser against a real server, with the SMTP sink as the mailbox.
import { ADMIN, expect, screen, signIn, watchedContext } from "./harness.mjs";
import { holding, mailText } from "./smtp-sink.mjs";

async function editor(stack, s) {
  if (!s.editor) {
    s.editor = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
    await signIn(s.editor.page, ADMIN, "/admin");
    await s.editor.page.getByRole("navigation", { name: "Sections" }).waitFor();
    await s.editor.page.evaluate(() => localStorage.setItem("stoa.admin.language", "ru"));
  }
  return s.editor;
}

export const adminEditorSpecs = [
  [
    "editor (ru): the start page counts the new submission; the inbox shows it by form and sender, its answers by the form's fields; a note, an answer by mail in the sender's language, 'В работе'",
    async (stack, s) => {
      const { page } = await editor(stack, s);
      await page.goto("/admin");
      const waiting = page.getByTestId("waiting-requests");
      await waiting.waitFor();
      const count = Number(await waiting.getAttribute("data-count"));
      expect(count >= 1, `the start page counts new submissions, got ${count}`);
      await page.getByTestId("paid-today").waitFor();
      // Scheduled publications: the one count the server gives for every publishable entity.
      const scheduled = page.getByTestId("waiting-scheduled");
      await scheduled.waitFor();
      const server = await page.evaluate(async () => (await (await fetch("/api/platform/scheduled")).json()).data.total);
      expect(Number(await scheduled.getAttribute("data-count")) === server, `the start page shows the server's ${server} scheduled records`);
      await screen(page, "editor-dashboard-ru");
      await waiting.getByRole("link").click();
      await page.getByRole("heading", { name: "Заявки с форм" }).waitFor();
      const table = page.getByTestId("requests-table");
      // The site spec's visitor, Вера, wrote through the contact form.
      // (The i18n spec's Вера wrote too, another message.)
      const row = table.locator("tr", { hasText: "Хочу приехать на посадку" }).first();
      await row.getByText("vera@e2e.test").waitFor();
      expect(!(await row.textContent()).includes("{"), "no JSON in the list");
      await screen(page, "editor-inbox-ru");
      await row.getByTestId("request-open").click();
      const details = page.getByTestId("request-details");
      await details.waitFor();
      // Answers under the fields' own labels, an address to write to.
      await details.getByText("Сколько деревьев хотите посадить").waitFor();
      await details.getByRole("link", { name: "vera@e2e.test" }).waitFor();
      expect((await details.getByTestId("request-answer").count()) >= 3, "each answer is listed");
      await details.getByLabel("Заметка для команды").fill("Позвонить в пятницу");
      await details.getByRole("button", { name: "Сохранить заметку" }).click();
      await page.getByText("Сохранено").first().waitFor();
      await details.getByLabel("Ответ", { exact: true }).fill("Здравствуйте, Вера! Ждём вас на посадке в субботу.");
      await screen(page, "editor-request-ru");
      await details.getByTestId("request-reply-send").click();
      await page.getByText("Ответ отправляется на vera@e2e.test").waitFor();
      const mail = await stack.smtp.waitFor("vera@e2e.test", 15000, holding("Ждём вас на посадке"));
      const text = mailText(mail.raw);
      expect(text.includes("Ответ на вашу заявку"), `the answer's mail is in the sender's language (ru):\n${text}`);
      await details.getByTestId("request-status-in_progress").and(page.locator("[aria-pressed=true]")).waitFor();
      const stored = await page.evaluate(async () => (await (await fetch("/api/crm/requests?limit=100")).json()).data.find((r) => r.payload?.values?.message === "Хочу приехать на посадку"));
      expect(stored.status === "in_progress" && stored.note === "Позвонить в пятницу", `stored: ${JSON.stringify(stored)}`);
      await details.getByTestId("request-status-done").click();
      await details.getByTestId("request-status-done").and(page.locator("[aria-pressed=true]")).waitFor();
      await page.keyboard.press("Escape");
      await table.locator("tr", { hasText: "Хочу приехать на посадку" }).first().getByTestId("request-status").getByText("Готово").waitFor();
    },
  ],
  [
    "editor (ru): an order is found by its number and by its buyer's email, opened, and moved on with the next status's button",
    async (stack, s) => {
      const { page } = await editor(stack, s);
      await page.goto("/admin/ecommerce/order");
      await page.getByRole("heading", { name: "Заказы" }).waitFor();
      const table = page.getByTestId("orders-table");
      const paid = table.locator("tbody tr").filter({ has: page.locator('[data-status="approving"]') }).first();
      await paid.waitFor();
      const cells = await paid.locator("td").allTextContents();
      const number = cells[0].replace(/\D/g, "");
      const email = cells[2].trim();
      expect(number && email.includes("@"), `a paid order has a number and a buyer's address, got ${JSON.stringify(cells)}`);
      const search = page.getByRole("searchbox", { name: "Найти по номеру или почте" });
      await search.fill(`№ ${number}`);
      await page.waitForFunction((n) => {
        const rows = [...document.querySelectorAll("[data-testid=orders-table] tbody tr")];
        return rows.length === 1 && rows[0].textContent.includes(`№ ${n}`);
      }, number);
      await search.fill(email);
      await page.waitForFunction((e) => {
        const rows = [...document.querySelectorAll("[data-testid=orders-table] tbody tr")];
        return rows.length > 0 && rows.every((r) => r.textContent.includes(e));
      }, email);
      await screen(page, "editor-orders-found-ru");
      await table.locator("tr", { hasText: `№ ${number}` }).getByTestId("order-open").click();
      const details = page.getByTestId("order-details");
      await details.waitFor();
      // In words: the payment's provider and state, who moved the order (never an id).
      const said = await details.textContent();
      expect(!/\b(one_off|succeeded|dummy|subject:)\b/.test(said), `the order speaks Russian, got: ${said.slice(0, 400)}`);
      await details.getByRole("button", { name: "Перевести в «Собирается»" }).click();
      await details.locator('[data-status="packaging"]').first().waitFor();
      await screen(page, "editor-order-moved-ru");
      await page.keyboard.press("Escape");
    },
  ],
];

adminEditorSpecs.push([
  "editor (ru): writes an article — titles in ru and en, a heading, a link, a list and a picture from the media library with the toolbar, a category and a cover — publishes it and reads it on the site as written",
  async (stack, s) => {
    const { page } = await editor(stack, s);
    await page.goto("/admin/blog/article");
    await page.getByRole("heading", { name: "Статьи" }).waitFor();
    await page.getByRole("button", { name: "Добавить: статья" }).click();
    const dialog = page.getByRole("dialog", { name: "Новая запись: статья" });
    await dialog.waitFor();
    await dialog.getByLabel("Заголовок (ru)", { exact: true }).fill("Как мы сажаем лес");
    await dialog.locator('[data-field="title"]').getByRole("tab", { name: "en" }).click();
    await dialog.getByLabel("Заголовок (en)", { exact: true }).fill("How we plant a forest");
    const field = dialog.locator('[data-field="description"]');
    const toolbar = field.getByRole("toolbar", { name: "Оформление: Текст статьи (ru)" });
    const text = field.getByRole("textbox", { name: "Текст статьи (ru)" });
    await text.click();
    await toolbar.getByLabel("Абзац или заголовок").selectOption("h2");
    await page.keyboard.type("Почему лес");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Подробнее о посадке");
    await page.keyboard.press("Shift+Home");
    await toolbar.getByRole("button", { name: "Ссылка", exact: true }).click();
    await field.getByLabel("Ссылка на").fill("/ru/blog");
    await field.getByLabel("Ссылка на").press("Enter");
    // The text gets the focus back, the caret after the link.
    await page.waitForFunction(() => document.activeElement?.classList.contains("ProseMirror"));
    await page.keyboard.press("Enter");
    await toolbar.getByRole("button", { name: "Маркированный список" }).click();
    await page.keyboard.type("Берёза");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Сосна");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    // A picture from the media library (the demo's files), with its alternative text.
    await toolbar.getByRole("button", { name: "Картинка из медиатеки" }).click();
    const picker = page.getByRole("dialog", { name: "Картинка из медиатеки" });
    const tile = picker.getByTestId("media-tile").filter({ has: page.locator("img") }).first();
    await tile.waitFor();
    await screen(page, "editor-media-picker-ru");
    await tile.getByTestId("media-open").click();
    await picker.waitFor({ state: "detached" });
    await text.locator("img").waitFor();
    // Styled as the site shows it: the heading is large and bold, the list has its markers.
    const h2 = await text.locator("h2").evaluate((h) => ({ size: parseFloat(getComputedStyle(h).fontSize), weight: Number(getComputedStyle(h).fontWeight) }));
    const body = await text.locator("p").first().evaluate((p) => parseFloat(getComputedStyle(p).fontSize));
    expect(h2.size >= body * 1.4 && h2.weight >= 700, `the heading looks like the site's: ${JSON.stringify(h2)} over ${body}px`);
    expect((await text.locator("ul").evaluate((u) => getComputedStyle(u).listStyleType)) === "disc", "the list shows its markers");
    await dialog.getByLabel("Статус", { exact: true }).selectOption("published");
    await screen(page, "editor-article-ru");
    await dialog.locator("form button[type=submit]").first().click();
    await page.getByRole("dialog", { name: "Изменение: статья" }).locator("form button[data-status=success]").first().waitFor();
    const saved = await page.evaluate(async () => (await (await fetch(`/api/blog/articles?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "slug", method: "eq", value: "kak-my-sazhaem-les" }] }))}`)).json()).data[0]);
    expect(saved?.adminTitle === "Как мы сажаем лес" && saved.status === "published", `saved with its address from the Russian title: ${JSON.stringify(saved)?.slice(0, 300)}`);
    // A category and a cover, linked in the article's own form.
    const edit = page.getByRole("dialog", { name: "Изменение: статья" });
    // The category: picked by search in the article's list of categories.
    const categories = edit.getByRole("region", { name: "Рубрики", exact: true });
    await categories.getByRole("button", { name: "Выбрать: рубрика" }).click();
    await page.getByLabel("Найти: рубрики").fill("Наука");
    await page.getByRole("button", { name: /Наука/ }).first().click();
    await categories.getByTestId("relation-title").filter({ hasText: "Наука" }).waitFor();
    // The cover: the first of the article's files, chosen in the media library (thumbnails, search).
    const filesOf = edit.getByRole("region", { name: "Файлы статьи", exact: true });
    await filesOf.getByRole("button", { name: "Выбрать из медиатеки" }).click();
    const library = page.getByRole("dialog", { name: "Выбор из медиатеки: Файлы статьи" });
    await library.getByRole("searchbox").fill("qr");
    const qr = library.getByTestId("media-tile").filter({ has: page.locator("img") }).first();
    await qr.waitFor();
    await qr.getByTestId("media-open").click();
    await library.waitFor({ state: "detached" });
    await filesOf.getByTestId("relation-item").first().getByTestId("relation-thumb").waitFor();
    await screen(page, "editor-article-links-ru");
    const linked = await page.evaluate(async (id) => {
      const q = (path) => fetch(`${path}?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "articleId", method: "eq", value: id }] }))}`).then((r) => r.json()).then((b) => b.data.length);
      return [await q("/api/blog/categories-to-articles"), await q("/api/blog/articles-to-file-storage-module-files")];
    }, saved.id);
    expect(linked[0] === 1 && linked[1] === 1, `the article has its category and its cover: ${JSON.stringify(linked)}`);
    const marks = JSON.stringify(saved.description?.ru ?? {});
    expect(marks.includes('"href":"/ru/blog"') && marks.includes('"bulletList"') && marks.includes('"image"'), `the text holds the link, the list and the picture: ${marks.slice(0, 600)}`);
    await page.keyboard.press("Escape");
    // On the site, as written.
    await page.goto("/ru/blog/articles/kak-my-sazhaem-les");
    const article = page.locator("main");
    await article.getByRole("heading", { name: "Как мы сажаем лес", level: 1 }).waitFor();
    await article.getByRole("heading", { name: "Почему лес", level: 2 }).waitFor();
    const link = article.getByRole("link", { name: "Подробнее о посадке" });
    expect((await link.getAttribute("href")) === "/ru/blog", "the link goes where it was set");
    await article.locator("ul li", { hasText: "Берёза" }).waitFor();
    await article.locator("ul li", { hasText: "Сосна" }).waitFor();
    const alt = await article.locator("figure img").first().getAttribute("alt");
    expect(!!alt && alt.trim().length > 0, `the picture has its alternative text, got '${alt}'`);
    await screen(page, "editor-article-on-site-ru");
    await page.goto("/en/blog/articles/kak-my-sazhaem-les");
    await page.getByRole("heading", { name: "How we plant a forest", level: 1 }).waitFor();
  },
]);

adminEditorSpecs.push([
  "editor (ru): builds a landing page from blocks — adds three from the gallery, edits one's title (the page beside shows it before it is saved), moves one with the keyboard — at desktop and phone width, then publishes it with its blocks for visitors",
  async (stack, s) => {
    const { page } = await editor(stack, s);
    const made = await page.evaluate(async () => {
      const r = await fetch("/api/host/pages", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Посадка вместе", url: "/e2e-landing", adminTitle: "Лендинг E2E", status: "draft" }) });
      return (await r.json()).data.id;
    });
    await page.goto(`/admin/host/page?edit=${made}`);
    const record = page.getByRole("dialog", { name: "Изменение: страница" });
    await record.getByTestId("builder-open").click();
    const builder = page.getByRole("dialog", { name: /^Конструктор страницы/ });
    await builder.getByText("На странице пока нет блоков. Добавьте первый.").waitFor();
    const frame = builder.getByTestId("builder-frame");
    // Three blocks from the gallery: the first of three kinds.
    for (let i = 0; i < 3; i++) {
      await builder.getByTestId("builder-add").click();
      const gallery = page.getByRole("dialog", { name: "Добавить блок: выберите вид" });
      const kinds = gallery.locator("[data-variant^='website-builder.']");
      await kinds.nth(i).waitFor();
      if (i === 0) await screen(page, "builder-gallery-ru");
      await kinds.nth(i).click();
      // The new block's form opens beside the page, in place of the list.
      const part = builder.getByTestId("builder-editing");
      await part.locator("form").first().waitFor();
      if (i === 1) {
        // One block's text, edited where it is: the page beside shows it before it is saved.
        await part.getByLabel("Заголовок (ru)", { exact: true }).fill("Сажаем вместе");
        await page.frameLocator("[data-testid=builder-frame]").getByText("Сажаем вместе").first().waitFor();
        const stored = await page.evaluate(async () => (await (await fetch(`/api/website-builder/widgets?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "title->>ru", method: "eq", value: "Сажаем вместе" }] }))}`)).json()).data.length);
        expect(stored === 0, `nothing is saved yet, found ${stored}`);
        await screen(page, "builder-live-ru");
        await part.locator("form button[type=submit]").first().click();
        await part.locator("form button[data-status=success]").first().waitFor();
        // What the block links is edited beside it too: a group of buttons, picked by search; the
        // page beside renders again with it.
        const before = await frame.getAttribute("src");
        const groups = part.getByRole("region", { name: "Группы кнопок виджета", exact: true });
        await groups.getByRole("button", { name: "Выбрать: группа кнопок" }).click();
        const options = page.getByRole("dialog", { name: "Выбрать: группа кнопок" }).getByRole("button");
        await options.first().waitFor();
        const chosen = (await options.first().locator("span span").first().textContent())?.trim();
        await options.first().click();
        await groups.getByTestId("relation-item").filter({ hasText: chosen }).waitFor();
        await page.waitForFunction((src) => document.querySelector("[data-testid=builder-frame]")?.getAttribute("src") !== src, before);
        const block = await page.evaluate(async () => (await (await fetch(`/api/website-builder/widgets?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "title->>ru", method: "eq", value: "Сажаем вместе" }] }))}`)).json()).data[0].id);
        const links = await page.evaluate(async (id) => (await (await fetch(`/api/website-builder/widgets-to-buttons-arrays?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "widgetId", method: "eq", value: id }] }))}`)).json()).data.length, block);
        expect(links === 1, `the block links its button group, found ${links}`);
        await screen(page, "builder-block-links-ru");
      }
      await builder.getByTestId("builder-back").click();
      await part.waitFor({ state: "detached" });
      await builder.getByTestId("builder-block").nth(i).waitFor();
    }
    // The page beside shows the edited block.
    const inFrame = page.frameLocator("[data-testid=builder-frame]");
    await inFrame.getByText("Сажаем вместе").first().waitFor();
    await screen(page, "builder-three-ru");
    // The third block moved up by the keyboard, one place: the order is stored and shown.
    const before = await builder.getByTestId("builder-block").evaluateAll((els) => els.map((e) => e.getAttribute("data-block")));
    await builder.getByTestId("builder-block").nth(2).getByRole("button", { name: /^Переставить блок/ }).focus();
    await page.keyboard.press("ArrowUp");
    const want = [before[0], before[2], before[1]];
    await page.waitForFunction((w) => JSON.stringify([...document.querySelectorAll("[data-testid=builder-block]")].map((e) => e.getAttribute("data-block"))) === JSON.stringify(w), want);
    // Said to a screen reader in words, and the handle keeps the focus for the next move.
    await builder.getByTestId("builder-said").getByText(/теперь блок 2 из 3/).waitFor();
    expect(await builder.getByTestId("builder-block").nth(1).getByRole("button", { name: /^Переставить блок/ }).evaluate((b) => b === document.activeElement), "the moved block's handle keeps the focus");
    // Said to a screen reader in words, and the handle keeps the focus for the next move.
    await builder.getByTestId("builder-said").getByText(/теперь блок 2 из 3/).waitFor();
    expect(await builder.getByTestId("builder-block").nth(1).getByRole("button", { name: /^Переставить блок/ }).evaluate((b) => b === document.activeElement), "the moved block's handle keeps the focus");
    const stored = await page.evaluate(async (id) => (await (await fetch(`/api/host/pages-to-widgets?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "pageId", method: "eq", value: id }] }))}`)).json()).data, made);
    const byOrder = [...stored].sort((a, b) => a.orderIndex - b.orderIndex).map((l) => l.id);
    expect(JSON.stringify(byOrder) === JSON.stringify(want), `the new order is stored: ${JSON.stringify(byOrder)} vs ${JSON.stringify(want)}`);
    // New blocks are drafts: the preview shows them, visitors once the page is published.
    const statuses = await page.evaluate(async (ids) => (await (await fetch(`/api/host/widgets?filters=${encodeURIComponent(JSON.stringify({ and: [{ column: "id", method: "inArray", value: ids }] }))}`)).json()).data.map((w) => w.status), stored.map((l) => l.widgetId));
    expect(statuses.length === 3 && statuses.every((x) => x === "draft"), `the new blocks are drafts: ${JSON.stringify(statuses)}`);
    await inFrame.getByText("Сажаем вместе").first().waitFor();
    // At phone width.
    await builder.getByRole("button", { name: "Телефон" }).click();
    await page.waitForFunction(() => document.querySelector("[data-testid=builder-frame]")?.getBoundingClientRect().width === 390);
    await inFrame.getByText("Сажаем вместе").first().waitFor();
    await screen(page, "builder-phone-ru");
    expect((await frame.count()) === 1, "one preview");
    await page.keyboard.press("Escape");
    await builder.waitFor({ state: "detached" });
    // Published with its blocks: visitors see the page as it was built.
    const unpublished = await fetch(`${stack.base}/ru/e2e-landing`);
    expect(unpublished.status === 404, `a draft page is not there for visitors, got ${unpublished.status}`);
    s.editor.expectStatus(409);
    const controls = record.getByTestId("draft-controls");
    await controls.getByRole("button", { name: "Опубликовать", exact: true }).click();
    await record.getByRole("button", { name: "Опубликовать вместе с виджетами" }).click();
    await controls.getByTestId("status-badge").getByText("Опубликовано").waitFor();
    s.editor.clearExpected();
    const html = await (await fetch(`${stack.base}/ru/e2e-landing`)).text();
    expect(html.includes("Сажаем вместе"), "visitors see the published page with its blocks");
    await page.keyboard.press("Escape");
  },
]);

adminEditorSpecs.push([
  "editor (ru): the accounts screen lists each account by its address with its roles, how it signs in, live sessions, orders and last visit; one opens with everything linked to it",
  async (stack, s) => {
    const { page } = await editor(stack, s);
    await page.goto("/admin/rbac/subject");
    await page.getByRole("heading", { name: "Аккаунты" }).waitFor();
    const table = page.getByTestId("accounts-table");
    const me = table.locator("tr", { hasText: "admin@e2e.test" });
    await me.waitFor();
    const cells = await me.locator("td").allTextContents();
    expect(/admin/i.test(cells[1]) && cells[2].trim() !== "—" && Number(cells[3]) >= 1 && cells[5].trim() !== "—", `the admin's row: ${JSON.stringify(cells)}`);
    expect(!cells.some((c) => /email_and_password|ethereum_virtual_machine|[0-9a-f]{8}-[0-9a-f]{4}/.test(c)), `words, no keys or ids: ${JSON.stringify(cells)}`);
    await screen(page, "editor-accounts-ru");
    await me.getByTestId("account-open").click();
    await page.getByRole("dialog", { name: /^Изменение: / }).waitFor();
    await page.keyboard.press("Escape");
  },
]);
