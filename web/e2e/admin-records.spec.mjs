// Records an admin can hand to a client (issue 18): the form refuses what the server would before
// saving, references read as their targets' titles in the admin's language, ids copy with one
// click, and records missing a language are marked and can be filtered. A real browser against a
// real server, as the admin signed in by admin.spec (or signed in here when run alone).
import { ADMIN, expect, screen, signIn, watchedContext } from "./harness.mjs";

/** A JSON call from the page (the admin's session); answers the parsed body. */
async function api(page, method, path, body) {
  return page.evaluate(
    async ([m, p, b]) => {
      const r = await fetch(p, { method: m, headers: { "content-type": "application/json" }, body: b === undefined ? undefined : JSON.stringify(b) });
      return { status: r.status, total: r.headers.get("x-total-count"), body: await r.json() };
    },
    [method, path, body],
  );
}

/** `?filters=` of one `column = value` condition. */
const eq = (column, value) => `filters=${encodeURIComponent(JSON.stringify({ and: [{ column, method: "eq", value }] }))}`;

async function admin(stack, s) {
  if (!s.w) {
    s.w = await watchedContext(stack);
    await signIn(s.w.page, ADMIN, "/admin");
    await s.w.page.getByRole("navigation", { name: "Sections" }).waitFor();
  }
  // The admin keeps its language in the browser: each spec starts in English (from its next page
  // load on), whatever the one before left.
  await s.w.page.evaluate(() => localStorage.setItem("stoa.admin.language", "en")).catch(() => undefined);
  return s.w;
}

/** The admin's language switch in its header (the UI changes language without a reload). */
async function setLanguage(page, lang) {
  // Labelled in the language it shows: 'Language' while English, 'Язык' while Russian.
  await page.getByRole("combobox", { name: lang === "ru" ? "Language" : "Язык", exact: true }).selectOption(lang);
  await page.getByRole("combobox", { name: lang === "ru" ? "Язык" : "Language", exact: true }).waitFor();
}

/** Records made once for the specs below, through the API. */
async function records(page, s) {
  if (s.records) return s.records;
  const made = async (path, body) => {
    const r = await api(page, "POST", path, body);
    expect(r.status === 201 || r.status === 200, `POST ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.data.id;
  };
  const tree = await made("/api/host/widgets", { slug: "e2e-rec-tree", adminTitle: "E2E rec tree admin", title: { en: "Records tree", ru: "Дерево записей" } });
  const onlyEn = await made("/api/host/widgets", { slug: "e2e-rec-only-en", adminTitle: "E2E rec only en", title: { en: "Only English" } });
  const pageId = await made("/api/host/pages", { adminTitle: "E2E records page", title: "Records page", url: "/e2e-records" });
  await made("/api/host/pages-to-widgets", { pageId, widgetId: tree });
  s.records = { tree, onlyEn, page: pageId };
  return s.records;
}

export const adminRecordsSpecs = [
  [
    "records: 'Create' with the title empty stays on the form with its message and stores nothing; the address follows the title (the first free one), a taken one typed by hand is said as it is typed, the admin name is the title",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const meta = (await api(page, "GET", "/api/meta")).body.data;
      const article = meta.entities.find((e) => e.module === "blog" && e.name === "article");
      const publishable = article.fields.some((f) => f.name === "status" && (f.values ?? []).includes("draft"));
      await page.goto("/admin/blog/article");
      await page.getByRole("button", { name: "Add article" }).click();
      const dialog = page.getByRole("dialog", { name: "New article" });
      await dialog.waitFor();
      // A new publishable record starts as a draft (the database's default is 'published').
      if (publishable) {
        const status = await dialog.getByLabel("Status", { exact: true }).inputValue();
        expect(status === "draft", `a new article starts as draft, got '${status}'`);
      }
      // No random words anywhere: the technical fields are closed under 'Advanced', empty until a title is typed.
      const advanced = dialog.getByTestId("advanced-fields");
      expect(!(await advanced.evaluate((d) => d.open)), "'Advanced' starts closed");
      const countBefore = Number((await api(page, "GET", "/api/blog/articles?limit=1&count=true")).total);
      await dialog.locator("form button[type=submit]").click();
      await dialog.locator("form button[data-status=error]").waitFor();
      await dialog.locator('[data-field="title"]').getByText("Enter the title in at least one language").waitFor();
      expect(await page.getByRole("dialog", { name: "New article" }).isVisible(), "the form stays open as a create form");
      await screen(page, "records-create-refused");
      const countAfter = Number((await api(page, "GET", "/api/blog/articles?limit=1&count=true")).total);
      expect(countBefore === countAfter, `nothing is stored, ${countBefore} → ${countAfter}`);

      // The address follows the title as it is typed.
      await dialog.getByLabel("Title (en)", { exact: true }).fill("How we plant");
      await advanced.locator("summary").click();
      const address = dialog.getByLabel("Address", { exact: true });
      await page.waitForFunction(() => document.querySelector('[data-field="slug"] input')?.value === "how-we-plant");
      expect((await dialog.getByLabel("Name in the admin", { exact: true }).inputValue()) === "", "the admin name is empty until saved");
      await screen(page, "records-advanced");

      // A slug another article has, typed by hand, is said before saving (the demo's 'how-we-plant').
      await address.fill("how-we-plan");
      await address.fill("how-we-plant");
      const taken = dialog.locator('[data-field="slug"]').getByText("Already taken by another record; choose another");
      await taken.waitFor();
      await screen(page, "records-slug-taken");
      await address.fill("e2e-records-article");
      await taken.waitFor({ state: "detached" });

      // Saved, the admin name is the title (as a draft).
      await dialog.locator("form button[type=submit]").click();
      await page.getByRole("dialog", { name: "Edit article" }).locator("form button[data-status=success]").waitFor();
      const saved = (await api(page, "GET", `/api/blog/articles?${eq("slug", "e2e-records-article")}`)).body.data[0];
      expect(saved?.title?.en === "How we plant" && saved.adminTitle === "How we plant", `the article is stored, its admin name its title, got ${JSON.stringify(saved)}`);
      if (publishable) expect(saved.status === "draft", `stored as a draft, got '${saved.status}'`);
      await page.keyboard.press("Escape");

      // Left to follow the title, a taken address becomes the first free one.
      await page.getByRole("button", { name: "Add article" }).click();
      await dialog.getByLabel("Title (en)", { exact: true }).fill("How we plant");
      await dialog.locator("form button[type=submit]").click();
      await page.getByRole("dialog", { name: "Edit article" }).locator("form button[data-status=success]").waitFor();
      const second = (await api(page, "GET", `/api/blog/articles?${eq("slug", "how-we-plant-2")}`)).body.data[0];
      expect(second?.adminTitle === "How we plant", `the second is 'how-we-plant-2', got ${JSON.stringify(second)}`);
      await page.keyboard.press("Escape");
    },
  ],
  [
    "records: in Russian, a reference column and field show the target's Russian title, link to it, and a required reference is asked for in Russian",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const ids = await records(page, s);
      await page.goto("/admin/host/page");
      await setLanguage(page, "ru");
      await page.getByRole("searchbox", { name: "Поиск: страницы" }).fill("E2E records page");
      await page.locator("tr", { hasText: "E2E records page" }).getByRole("button", { name: "Изменить" }).click();
      const dialog = page.getByRole("dialog", { name: "Изменение: страница" });
      const sub = dialog.getByRole("region", { name: "Блоки страницы", exact: true });
      const link = sub.getByTestId("relation-title").filter({ hasText: "Дерево записей" });
      await link.waitFor();
      const href = await link.getAttribute("href");
      expect(href === `/admin/host/widget?edit=${ids.tree}`, `the reference links to the widget's admin page, got ${href}`);
      await screen(page, "records-reference-ru");

      // The link's own form (its settings) reads the same title in its reference field, with a link.
      await sub.getByRole("button", { name: "Настройки связи: Дерево записей" }).click();
      const rel = page.getByRole("dialog", { name: "Изменение: связь страницы и блока" });
      await rel.locator('[data-field="widgetId"]').getByText("Дерево записей").waitFor();
      await rel.getByRole("link", { name: "Открыть Дерево записей" }).waitFor();
      await screen(page, "records-reference-field-ru");
      await page.keyboard.press("Escape");
      await rel.waitFor({ state: "detached" });

      // Following the title's link opens the widget's own form.
      await link.click();
      await page.waitForURL(`**/admin/host/widget?edit=${ids.tree}`);
      const widget = page.getByRole("dialog", { name: "Изменение: блок страницы" });
      await widget.waitFor();
      // The admin's language's tab comes first and is open; English is the second.
      await widget.getByRole("tablist", { name: "Заголовок", exact: true }).getByRole("tab", { name: "en" }).click();
      const en = await widget.getByLabel("Заголовок (en)", { exact: true }).inputValue();
      expect(en === "Records tree", `the linked widget's form is open, title (en) '${en}'`);
      await screen(page, "records-followed-reference");
      await page.keyboard.press("Escape");
      await widget.waitFor({ state: "detached" });
      await page.waitForURL((u) => !u.search.includes("edit="));
      // A required reference left empty is refused, in Russian, beside the field (the links' own table).
      await page.goto("/admin/host/pages-to-widgets");
      await page.getByRole("button", { name: "Добавить: связь страницы и блока" }).click();
      const create = page.getByRole("dialog", { name: "Новая запись: связь страницы и блока" });
      await create.locator("form button[type=submit]").click();
      await create.locator('[data-field="widgetId"]').getByText("Обязательное поле", { exact: true }).first().waitFor();
      await screen(page, "records-required-ru");
      const attached = (await api(page, "GET", `/api/host/pages-to-widgets?${eq("pageId", ids.page)}`)).body.data;
      expect(attached.length === 1, `nothing more is stored for the page, got ${attached.length} rows`);
      await page.keyboard.press("Escape");
      await create.waitFor({ state: "detached" });
      await setLanguage(page, "en");
    },
  ],
  [
    "records: the id column's button copies the whole id and says so",
    async (stack, s) => {
      const { page, context } = await admin(stack, s);
      const ids = await records(page, s);
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.base });
      await page.goto("/admin/host/widget");
      await page.getByRole("searchbox", { name: "Search: page blocks" }).fill("e2e-rec-tree");
      const row = page.locator(`tr[data-row="${ids.tree}"]`);
      await row.getByRole("button", { name: "Copy id", exact: true }).click();
      await page.getByText(`Id copied: ${ids.tree}`).waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied === ids.tree, `the clipboard holds the whole id, got '${copied}'`);
      await screen(page, "records-id-copied");
    },
  ],
  [
    "records: a record with only an English title is marked 'missing ru' in the table and its form, and the filter narrows the table to it",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const ids = await records(page, s);
      await page.goto("/admin/host/widget");
      await page.getByRole("searchbox", { name: "Search: page blocks" }).fill("e2e-rec");
      const full = page.locator(`tr[data-row="${ids.tree}"]`);
      const partial = page.locator(`tr[data-row="${ids.onlyEn}"]`);
      await full.waitFor();
      await partial.getByText("missing ru", { exact: true }).waitFor();
      expect((await full.getByTestId("missing-language").count()) === 0, "the widget with both titles is not marked");
      await screen(page, "records-missing-badge");

      await page.getByLabel("Translations: page blocks", { exact: true }).selectOption("ru");
      await full.waitFor({ state: "detached" });
      expect(await partial.isVisible(), "the English-only widget stays");
      const shown = await page.locator("tbody tr").count();
      expect(shown === 1, `the filter leaves one row, got ${shown}`);
      await screen(page, "records-missing-filter");

      // In the form, beside the title's language tabs; giving the Russian title clears it.
      await partial.getByRole("button", { name: "Edit", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Edit page block" });
      const badge = dialog.locator('[data-field="title"]').getByText("missing ru", { exact: true });
      await badge.waitFor();
      await screen(page, "records-missing-in-form");
      await dialog.getByRole("tablist", { name: "Title", exact: true }).getByRole("tab", { name: "ru" }).click();
      await dialog.getByLabel("Title (ru)", { exact: true }).fill("Только английский");
      await badge.waitFor({ state: "detached" });
      await page.keyboard.press("Escape");
    },
  ],
];
