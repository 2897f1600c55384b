// The admin's tools for handing the back office to a client (issue 18): bulk actions, CSV export
// and import, keyboard shortcuts, the 390 px layout, and roles and permissions on one screen —
// through a real browser against a real server.
import { readFileSync } from "node:fs";
import Papa from "papaparse";
import { ADMIN, axeFindings, expect, openAdvanced, screen, signIn, watchedContext } from "./harness.mjs";

const ARTICLES = "/api/blog/articles";

/** A same-origin API call from the signed-in page (cookies as the admin sends them). 2xx only:
 * a failed request would be a console error. */
async function call(page, method, path, body) {
  const r = await page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(p, { method: m, headers: b ? { "content-type": "application/json" } : {}, body: b ? JSON.stringify(b) : undefined });
      return { status: res.status, total: res.headers.get("x-total-count"), json: await res.json().catch(() => null) };
    },
    [method, path, body],
  );
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r;
}

const filters = (and) => encodeURIComponent(JSON.stringify({ and }));

/** How many articles match `and` (filters are counted exactly up to 10 000). */
async function count(page, and) {
  return Number((await call(page, "GET", `${ARTICLES}?limit=1&count=true&filters=${filters(and)}`)).total);
}

/** Every article matching `and`, 100 a request. */
async function all(page, and) {
  const out = [];
  for (let offset = 0; ; offset += 100) {
    const { json } = await call(page, "GET", `${ARTICLES}?limit=100&offset=${offset}&filters=${filters(and)}`);
    out.push(...json.data);
    if (json.data.length < 100) return out;
  }
}

/** Creates articles through the bulk route, 100 a request. */
async function createArticles(page, items) {
  for (let i = 0; i < items.length; i += 100) await call(page, "POST", `${ARTICLES}/bulk`, items.slice(i, i + 100).map((data) => ({ data })));
}

const like = (column, prefix) => [{ column, method: "like", value: `${prefix}%` }];

/** The admin's own watched page for these specs, signed in (made once). */
async function admin(stack, s) {
  if (!s.tools) {
    s.tools = await watchedContext(stack);
    await signIn(s.tools.page, ADMIN, "/admin");
    await s.tools.page.getByRole("navigation", { name: "Sections" }).waitFor();
  }
  return s.tools;
}

/** What a content field of an article must round-trip exactly. */
const content = (a) => JSON.stringify([a.variant, a.adminTitle, a.className, a.title, a.subtitle, a.description]);

export const adminToolsSpecs = [
  [
    "admin tools: the admin selects two articles and deletes them in bulk, after a confirm",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      await createArticles(
        page,
        ["one", "two", "three"].map((n) => ({ slug: `bulk-del-${n}`, adminTitle: `Bulk del ${n}`, title: { en: `Bulk del ${n}` } })),
      );
      await page.goto("/admin/blog/article");
      await page.getByRole("searchbox", { name: "Search: articles" }).fill("bulk-del");
      await page.locator("tbody tr", { hasText: "bulk-del-three" }).waitFor();
      await page.getByRole("checkbox", { name: "Select Bulk del one" }).check();
      await page.getByRole("checkbox", { name: "Select Bulk del three" }).check();
      const bar = page.getByRole("region", { name: "Selected records" });
      await bar.getByText("2 selected").waitFor();
      await screen(page, "admin-tools-bulk-selected");
      await bar.getByRole("button", { name: "Delete" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete 2 records?" });
      await confirm.waitFor();
      expect((await count(page, like("slug", "bulk-del-"))) === 3, "nothing is deleted before the confirm");
      await screen(page, "admin-tools-bulk-confirm");
      await confirm.getByRole("button", { name: "Delete" }).click();
      await page.getByText("Deleted 2 records").waitFor();
      await page.locator("tbody tr").nth(1).waitFor({ state: "detached" });
      const left = await all(page, like("slug", "bulk-del-"));
      expect(left.length === 1 && left[0].slug === "bulk-del-two", `only the unselected article is left, got ${left.map((a) => a.slug)}`);
      // Select all on the page picks the one that is left.
      await page.getByRole("checkbox", { name: "Select all on this page" }).check();
      await bar.getByText("1 selected").waitFor();
      await bar.getByRole("button", { name: "Clear selection" }).click();
      await bar.waitFor({ state: "detached" });
    },
  ],
  [
    "admin tools: 1 000 articles exported as CSV from a searched list (every page) come back identical when imported as copies",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const started = Date.now();
      const made = Array.from({ length: 1000 }, (_, i) => ({
        slug: `rt1000-${i}`,
        adminTitle: `rt1000 ${i}`,
        variant: i % 2 ? "default" : "overview-default",
        className: i % 3 ? null : `c-${i}`,
        title: { en: `Round "trip", ${i}`, ru: i % 4 ? `Туда и обратно\n${i}` : null },
        subtitle: { en: i % 5 ? `=1+${i}` : "" },
        description: { en: { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: `Body; ${i}, "quoted"\r\nnext` }] }] } },
      }));
      await createArticles(page, made);
      // Another article the search must leave out of the export.
      await createArticles(page, [{ slug: "not-in-the-export", adminTitle: "rt999 other" }]);
      await page.goto("/admin/blog/article");
      await page.getByRole("searchbox", { name: "Search: articles" }).fill("rt1000");
      await page.getByTestId("total").getByText(/1,000/).waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV: articles" }).click()]);
      await page.getByText("Exported 1000 rows").waitFor();
      await screen(page, "admin-tools-csv-exported");
      expect(/^blog\.article-\d{4}-\d{2}-\d{2}\.csv$/.test(download.suggestedFilename()), `file name ${download.suggestedFilename()}`);
      const text = readFileSync(await download.path(), "utf8");
      const parsed = Papa.parse(text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: "greedy" });
      expect(parsed.errors.length === 0, `the export parses: ${JSON.stringify(parsed.errors.slice(0, 3))}`);
      expect(parsed.data.length === 1000, `the export has the 1 000 searched rows, got ${parsed.data.length}`);
      const stored = await all(page, like("slug", "rt1000-"));
      const byId = new Map(stored.map((a) => [a.id, a]));
      for (const row of parsed.data) {
        const a = byId.get(row.id);
        expect(a, `row ${row.id} is one of the searched articles`);
        const fromCsv = { ...row, className: row.className || null, title: JSON.parse(row.title), subtitle: JSON.parse(row.subtitle), description: JSON.parse(row.description) };
        expect(content(fromCsv) === content(a) && row.slug === a.slug, `row ${row.slug} is the stored article:\n${content(fromCsv)}\n${content(a)}`);
      }

      // The same file, imported as copies: the server gives them new slugs, everything else is equal.
      // The export's notice goes first: fading out over the import's preview, axe would read it as
      // low contrast (a fast machine reached the preview within the notice's four seconds).
      await page.getByText("Exported 1000 rows").waitFor({ state: "detached", timeout: 15000 });
      await page.getByRole("button", { name: "Import CSV: articles" }).click();
      const dialog = page.getByRole("dialog", { name: "Import blog.article from CSV" });
      await dialog.getByLabel("Import as copies: leave out slug so the server makes new values").check();
      await dialog.getByLabel("CSV file").setInputFiles({ name: "articles.csv", mimeType: "text/csv", buffer: Buffer.from(text) });
      await dialog.getByTestId("csv-valid").getByText("1000 rows ready to import").waitFor();
      await screen(page, "admin-tools-csv-roundtrip-preview");
      await dialog.getByRole("button", { name: "Import 1000 rows" }).click();
      await dialog.getByTestId("csv-imported").getByText("Imported 1000 rows.").waitFor({ timeout: 30000 });
      const after = await all(page, like("adminTitle", "rt1000 "));
      expect(after.length === 2000, `2 000 articles after the import, got ${after.length}`);
      const copies = after.filter((a) => !a.slug.startsWith("rt1000-"));
      expect(copies.length === 1000 && new Set(copies.map((a) => a.slug)).size === 1000, "1 000 copies with new slugs");
      const originals = new Map(stored.map((a) => [a.adminTitle, content(a)]));
      const differ = copies.filter((c) => originals.get(c.adminTitle) !== content(c));
      expect(differ.length === 0, `copies equal their originals, ${differ.length} differ: ${differ.slice(0, 1).map(content)}`);
      await dialog.getByRole("button", { name: "Close" }).first().click();
      const seconds = (Date.now() - started) / 1000;
      expect(seconds < 30, `the round trip of 1 000 articles took ${seconds} s`);
    },
  ],
  [
    "admin tools: an import with 3 bad rows shows them in the preview and imports the other rows only after the confirm",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const rows = Array.from({ length: 10 }, (_, i) => ({ slug: `imp-${i}`, adminTitle: `Imported ${i}`, variant: "default", title: JSON.stringify({ en: `Imported ${i}` }) }));
      rows[2].variant = "no-such-variant";
      rows[5].title = "{not json";
      rows[8].slug = "Not A Slug";
      const csv = Papa.unparse(rows);
      await page.goto("/admin/blog/article");
      await page.getByRole("button", { name: "Import CSV: articles" }).click();
      const dialog = page.getByRole("dialog", { name: "Import blog.article from CSV" });
      await dialog.getByLabel("CSV file").setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await dialog.getByTestId("csv-invalid").getByText("3 rows with errors will be skipped").waitFor();
      await dialog.getByTestId("csv-valid").getByText("7 rows ready to import").waitFor();
      const bad = dialog.locator("tr[data-invalid]");
      expect((await bad.count()) === 3, "three rows are marked");
      const said = await bad.allTextContents();
      expect(said[0].startsWith("4") && said[0].includes("variant must be one of"), `row 4: ${said[0]}`);
      expect(said[1].startsWith("7") && said[1].includes("title is not valid JSON"), `row 7: ${said[1]}`);
      expect(said[2].startsWith("10") && said[2].includes("slug use lower-case letters"), `row 10: ${said[2]}`);
      await screen(page, "admin-tools-csv-preview");
      expect((await count(page, like("slug", "imp-"))) === 0, "nothing is imported before the confirm");
      await dialog.getByRole("button", { name: "Import 7 rows" }).click();
      await dialog.getByTestId("csv-imported").getByText("Imported 7 rows.").waitFor();
      const failed = await dialog.getByTestId("csv-failed").locator("li").allTextContents();
      expect(failed.length === 3 && failed[0].startsWith("Row 4:") && failed[1].startsWith("Row 7:") && failed[2].startsWith("Row 10:"), `the summary lists the 3 rows: ${failed}`);
      await screen(page, "admin-tools-csv-summary");
      const landed = await all(page, like("slug", "imp-"));
      expect(landed.length === 7, `7 articles imported, got ${landed.length}`);

      // A row only the server can refuse (a slug already taken): reported, the rest of its chunk lands.
      s.tools.expectStatus(409);
      await dialog.getByRole("button", { name: "Import another file" }).click();
      const again = Papa.unparse([
        { slug: "imp-late-1", adminTitle: "Late 1" },
        { slug: "imp-0", adminTitle: "Taken" },
        { slug: "imp-late-2", adminTitle: "Late 2" },
      ]);
      await dialog.getByLabel("CSV file").setInputFiles({ name: "again.csv", mimeType: "text/csv", buffer: Buffer.from(again) });
      await dialog.getByRole("button", { name: "Import 3 rows" }).click();
      await dialog.getByTestId("csv-imported").getByText("Imported 2 rows.").waitFor();
      const conflict = await dialog.getByTestId("csv-failed").locator("li").allTextContents();
      expect(conflict.length === 1 && conflict[0].startsWith("Row 3: slug"), `the taken slug is reported: ${conflict}`);
      expect((await count(page, like("slug", "imp-late-"))) === 2, "the other two rows landed");
      s.tools.clearExpected();
      await dialog.getByRole("button", { name: "Close" }).first().click();
    },
  ],
  [
    "admin tools: '/' focuses the search, 'n' opens New (not while typing), Ctrl+S saves the open form, '?' lists the shortcuts",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      await page.goto("/admin/blog/article");
      const search = page.getByRole("searchbox", { name: "Search: articles" });
      await search.waitFor();
      await page.locator("main h2").first().click();
      await page.keyboard.press("/");
      expect(await search.evaluate((el) => el === document.activeElement), "'/' focuses the table's search");
      await page.keyboard.type("n");
      expect((await search.inputValue()) === "n", "'n' typed in the search is text");
      expect((await page.getByRole("dialog").count()) === 0, "'n' while typing opens nothing");
      await search.fill("");
      await page.locator("main h2").first().click();
      await page.keyboard.press("n");
      const dialog = page.getByRole("dialog", { name: "New article" });
      await dialog.waitFor();
      await openAdvanced(dialog);
      await dialog.getByLabel("Address", { exact: true }).fill("shortcut-saved");
      await dialog.getByLabel("Name in the admin", { exact: true }).fill("Saved by Ctrl+S");
      await dialog.getByLabel("Title (en)", { exact: true }).fill("Saved by the keyboard");
      await page.keyboard.press("Control+s");
      await page.getByRole("dialog", { name: "Edit article" }).waitFor();
      expect((await count(page, [{ column: "slug", method: "eq", value: "shortcut-saved" }])) === 1, "Ctrl+S saved the article");
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
      await page.keyboard.press("?");
      const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      await help.getByText("Focus the table's search").waitFor();
      await help.getByText("Save the open form").waitFor();
      await screen(page, "admin-tools-shortcuts");
      await page.keyboard.press("Escape");
      // In Russian too.
      await page.getByRole("combobox", { name: "Language" }).selectOption("ru");
      await page.locator("main h2").first().click();
      await page.keyboard.press("?");
      await page.getByRole("dialog", { name: "Сочетания клавиш" }).getByText("Перейти к поиску по таблице").waitFor();
      await page.keyboard.press("Escape");
      await page.getByRole("combobox", { name: "Язык" }).selectOption("en");
    },
  ],
  [
    "admin tools: at 390 px the list does not overflow the page, the navigation opens from the menu button and dialogs fit",
    async (stack, s) => {
      s.toolsMobile = await watchedContext(stack, { viewport: { width: 390, height: 844 } });
      const { page } = s.toolsMobile;
      await signIn(page, ADMIN, "/admin/blog/article");
      await page.getByRole("searchbox", { name: "Search: articles" }).waitFor();
      await page.locator("tbody tr").first().waitFor();
      const width = () => page.evaluate(() => document.documentElement.scrollWidth);
      expect((await width()) <= 390, `the list page is ${await width()} px wide`);
      const nav = page.getByRole("navigation", { name: "Sections" });
      expect(!(await nav.isVisible()), "the navigation is folded away");
      await screen(page, "admin-tools-mobile-list");
      await page.getByRole("button", { name: "Menu" }).click();
      await nav.waitFor({ state: "visible" });
      await screen(page, "admin-tools-mobile-menu");
      await nav.locator('a[href="/admin/blog/category"]').click();
      await page.waitForURL(/\/admin\/blog\/category$/);
      await nav.waitFor({ state: "hidden" });
      expect((await width()) <= 390, `the category list is ${await width()} px wide`);
      await page.getByRole("button", { name: "Import CSV: categories" }).click();
      const dialog = page.getByRole("dialog", { name: "Import blog.category from CSV" });
      await dialog.waitFor();
      const box = await dialog.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390 && box.y >= 0 && box.y + box.height <= 844, `the dialog fits the screen: ${JSON.stringify(box)}`);
      await screen(page, "admin-tools-mobile-dialog");
      await page.keyboard.press("Escape");
      await page.goto("/admin/permissions");
      await page.locator("details[data-module=blog] summary").click();
      await page.getByRole("checkbox", { name: "Public: GET /api/blog/articles", exact: true }).waitFor();
      expect((await width()) <= 390, `the permissions screen is ${await width()} px wide`);
      await screen(page, "admin-tools-mobile-permissions");
    },
  ],
  [
    "admin tools: turning off the public read of /api/blog/articles makes it 401 for a visitor at once, and turning it on makes it 200 again",
    async (stack, s) => {
      const { page } = await admin(stack, s);
      const visitor = await stack.browser.newContext();
      const visit = async () => (await visitor.request.get(`${stack.base}${ARTICLES}?limit=1`)).status();
      const key = [{ column: "method", method: "eq", value: "GET" }, { column: "path", method: "eq", value: ARTICLES }];
      try {
        expect((await visit()) === 200, "a visitor reads the articles");
        await page.goto("/admin/permissions");
        await page.getByRole("heading", { name: "Roles and permissions" }).waitFor();
        await page.getByTestId("route-count").getByText(/routes/).waitFor();
        await screen(page, "admin-tools-permissions");
        // The subject view: what a visitor may call, before.
        await page.getByRole("tab", { name: "What can this subject do" }).click();
        await page.getByRole("button", { name: "A visitor who is not signed in" }).click();
        const may = page.getByTestId("subject-count");
        await may.waitFor();
        const before = Number((await may.textContent()).match(/\d+/)[0]);
        const matrix = page.getByRole("tabpanel", { name: "Permissions by route" });
        await page.getByRole("tab", { name: "Permissions by route" }).click();
        await matrix.getByPlaceholder("Filter routes").fill("/api/blog/articles");
        const pub = page.getByRole("checkbox", { name: "Public: GET /api/blog/articles", exact: true });
        expect(await pub.isChecked(), "the route starts public");
        await page.locator("th", { hasText: "Admin" }).first().getByText("admin: everything").waitFor();
        await screen(page, "admin-tools-permissions-filtered");
        await pub.uncheck();
        await page.getByTestId("perm-status").getByText("Saved").waitFor();
        expect((await visit()) === 401, "a visitor is refused at once");
        await page.getByRole("tab", { name: "What can this subject do" }).click();
        await page.getByRole("button", { name: "A visitor who is not signed in" }).click();
        await may.getByText(`May call ${before - 1} routes`).waitFor();
        await page.getByRole("tabpanel", { name: "What can this subject do" }).getByPlaceholder("Filter routes").fill("GET /api/blog/articles");
        await screen(page, "admin-tools-subject");
        await page.getByRole("tab", { name: "Permissions by route" }).click();
        await pub.check();
        await page.getByTestId("perm-status").getByText("Saved").waitFor();
        expect((await visit()) === 200, "a visitor reads the articles again");

        // A role's box writes a permission row and its link; unticking it deletes the link.
        const user = page.getByRole("checkbox", { name: "User: POST /api/blog/articles", exact: true });
        await user.check();
        await page.getByTestId("perm-status").getByText("Saved").waitFor();
        const perm = (await call(page, "GET", `/api/rbac/permissions?filters=${filters([{ column: "method", method: "eq", value: "POST" }, { column: "path", method: "eq", value: ARTICLES }])}`)).json.data;
        expect(perm.length === 1 && perm[0].public === false, `one permission row for POST ${ARTICLES}: ${JSON.stringify(perm)}`);
        const links = async () => (await call(page, "GET", `/api/rbac/roles-to-permissions?filters=${filters([{ column: "permissionId", method: "eq", value: perm[0].id }])}`)).json.data.length;
        expect((await links()) === 1, "linked to the role");
        await page.reload();
        await matrix.getByPlaceholder("Filter routes").fill("/api/blog/articles");
        expect(await user.isChecked(), "the box reads the stored row after a reload");
        await user.uncheck();
        await page.getByTestId("perm-status").getByText("Saved").waitFor();
        expect((await links()) === 0, "the link is gone");

        // Opening a route that writes to everyone is asked about first; cancelled, nothing changes.
        const openPost = matrix.getByRole("checkbox", { name: "Public: POST /api/blog/articles", exact: true });
        await openPost.click();
        const ask = page.getByRole("alertdialog", { name: "Let everyone, signed in or not, call POST /api/blog/articles?" });
        await ask.waitFor();
        await screen(page, "admin-tools-permissions-open-write");
        await ask.getByRole("button", { name: "Cancel" }).click();
        await ask.waitFor({ state: "detached" });
        expect(!(await openPost.isChecked()), "the write stays closed");
        const stillClosed = (await call(page, "GET", `/api/rbac/permissions?filters=${filters([{ column: "method", method: "eq", value: "POST" }, { column: "path", method: "eq", value: ARTICLES }])}`)).json.data;
        expect(stillClosed.every((r) => !r.public), "no permission row of the write is public");
      } finally {
        // Never leave the site's articles closed for the specs after this one.
        const rows = (await call(page, "GET", `/api/rbac/permissions?filters=${filters(key)}`)).json.data;
        for (const r of rows) if (!r.public) await call(page, "PATCH", `/api/rbac/permissions/${r.id}`, { public: true });
        await visitor.close();
      }
    },
  ],
  [
    "admin tools: what a visitor may call is the server's answer, read in en and ru at 1366 and 390 px, reached with the keyboard alone",
    async (stack) => {
      const WORDS = {
        en: { tab: "What can this subject do", visitor: "A visitor who is not signed in", roles: "Roles: no roles", may: /May call \d+ routes/, via: "public", language: "Language" },
        ru: { tab: "Что может этот субъект", visitor: "Посетитель без входа", roles: "Роли: нет ролей", may: /Может вызвать/, via: "публично", language: "Язык" },
      };
      for (const [view, viewport] of [["desktop", { width: 1366, height: 900 }], ["phone", { width: 390, height: 844 }]]) {
        const w = await watchedContext(stack, { viewport });
        const { page } = w;
        try {
          await signIn(page, ADMIN, "/admin");
          await page.waitForURL(/\/admin$/);
          await page.goto("/admin/permissions");
          for (const lang of ["en", "ru"]) {
            const t = WORDS[lang];
            if (lang === "ru") await page.getByRole("combobox", { name: WORDS.en.language }).selectOption("ru");
            await page.getByRole("heading", { name: lang === "ru" ? "Роли и права" : "Roles and permissions" }).waitFor();
            // The keyboard alone: the tab, then the visitor, each taken with Enter.
            await page.getByRole("tab", { name: t.tab }).focus();
            await page.keyboard.press("Enter");
            await page.getByRole("button", { name: t.visitor }).focus();
            await page.keyboard.press("Enter");
            const section = page.getByTestId("subject-can");
            await section.getByText(t.may).waitFor();
            await section.getByText(t.roles).waitFor();
            const text = await section.textContent();
            expect(!/[0-9a-f]{8}-[0-9a-f]{4}-/.test(text), `${lang}/${view}: no id on the subject's view`);
            const groups = (await section.locator("summary").allTextContents()).map((g) => g.split("·")[0].trim());
            const slugs = groups.filter((g) => /^[a-z][a-z.-]*$/.test(g));
            expect(groups.length > 5 && !slugs.length, `${lang}/${view}: groups named by their module's words, not ${slugs.join(", ")}`);
            // A group opens from its summary with Enter (it stays open across the language switch).
            const group = section.locator("details").first();
            if (!(await group.evaluate((d) => d.open))) {
              await group.locator("summary").focus();
              await page.keyboard.press("Enter");
            }
            await section.getByText(`— ${t.via}`).first().waitFor();
            const width = await page.evaluate(() => document.documentElement.scrollWidth);
            expect(width <= viewport.width, `${lang}/${view}: the page is ${width} px wide`);
            const axe = await axeFindings(page);
            expect(!axe.length, `${lang}/${view}: ${axe.join("; ")}`);
            await screen(page, `admin-tools-visitor-may-${lang}-${view}`);
          }
        } finally {
          await w.context.close();
        }
      }
    },
  ],
];
