// The admin speaks the content model's words, never its keys (issue 49): every entity's screen in
// Russian and English, and every entity's form, is walked, and what a person reads there — the
// side list, headings, column heads, labels, buttons, choices — is searched for the declared names
// of modules, entities and fields ("adminTitle", "orders-to-products", "in_progress"). Data cells
// are not searched (a record's own slug is its data). axe runs on one screen of each kind.
import { ADMIN, axeFindings, expect, screen, signIn, watchedContext } from "./harness.mjs";

/** The keys a person must never read: those shaped like code (camelCase, kebab-case, snake_case),
 * and in Russian every Latin key at all. */
function rawKeys(meta) {
  const keys = new Set(meta.modules);
  for (const e of meta.entities) {
    keys.add(e.name);
    keys.add(e.route);
    for (const f of e.fields) {
      keys.add(f.name);
      for (const v of f.values ?? []) keys.add(v);
    }
  }
  const coded = [...keys].filter((k) => /[a-z][A-Z]|[a-z][-_][a-z]/.test(k));
  const latin = [...keys].filter((k) => /^[a-z][a-zA-Z0-9_-]+$/.test(k) && k.length > 2);
  return { en: coded, ru: [...new Set([...coded, ...latin])] };
}

/** What a person reads on the screen (outside data cells), one string per element. */
async function readable(page, scope) {
  return page.evaluate((where) => {
    const root = where ? document.querySelector(where) : document.body;
    if (!root) return [];
    const out = [];
    const sel = "h1, h2, h3, h4, th, label, legend, summary, button, [role=tab], option, nav a, dt, [data-testid=field-help], [aria-label], [placeholder], [title]";
    for (const el of root.querySelectorAll(sel)) {
      if (el.closest("td") && !el.matches("button, label")) continue;
      const own = el.matches("h1, h2, h3, h4, th, label, legend, summary, button, [role=tab], option, nav a, dt, [data-testid=field-help]") ? (el.textContent ?? "") : "";
      for (const t of [own, el.getAttribute("aria-label"), el.getAttribute("placeholder"), el.getAttribute("title")]) if (t && t.trim()) out.push(t.trim());
    }
    return out;
  }, scope);
}

/** The raw keys found in `texts` (as whole words). What a person is shown to type is not a key
 * read: an address ("/blog/articles/…") or a literal in quotes («summary»). */
function found(texts, keys) {
  const hits = new Set();
  for (const text of texts) {
    const t = text.replace(/\[[\w.-]+\]/g, " ").replace(/\/[\w\-./[\]]*/g, " ").replace(/«[^»]*»/g, " ");
    for (const k of keys) {
      const re = new RegExp(`(^|[^\\p{L}\\p{N}_-])${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\p{L}\\p{N}_-])`, "u");
      if (re.test(t)) hits.add(`${k} in “${t.slice(0, 80)}”`);
    }
  }
  return [...hits];
}

async function setLanguage(page, lang) {
  await page.evaluate((l) => localStorage.setItem("stoa.admin.language", l), lang);
}

export const adminWordsSpecs = [
  [
    "admin words: every entity's screen and form in ru and en shows no raw module, entity, field or value key; axe finds nothing serious on any of them",
    async (stack, s) => {
      // Two pages walk half of the entities each, side by side (the walk was a fifth of the
      // end-to-end run, one screen at a time).
      s.words = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
      s.words2 = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
      const pages = [s.words.page, s.words2.page];
      await Promise.all(pages.map((page) => signIn(page, ADMIN, "/admin")));
      await Promise.all(pages.map((page) => page.getByRole("navigation", { name: "Sections" }).waitFor()));
      const meta = await pages[0].evaluate(async () => (await (await fetch("/api/meta")).json()).data);
      const keys = rawKeys(meta);
      const problems = [];
      const started = Date.now();
      let screens = 0;
      const walk = async (page, entities, first) => {
        for (const lang of ["ru", "en"]) {
          await setLanguage(page, lang);
          await page.goto("/admin");
          const nav = page.getByRole("navigation", { name: lang === "ru" ? "Разделы" : "Sections" });
          await nav.waitFor();
          if (first) for (const hit of found(await readable(page, "#admin-models"), keys[lang])) problems.push(`${lang} side list: ${hit}`);
          let axed = false;
          for (const e of entities) {
            // Client-side, as a person moves between screens.
            await page.evaluate((to) => {
              window.history.pushState({}, "", to);
              window.dispatchEvent(new PopStateEvent("popstate"));
            }, `/admin/${e.module}/${e.name}`);
            const marker = page.locator(`main [data-screen="${e.module}.${e.name}"]`);
            await marker.waitFor();
            // A table is read once its rows came (its count is shown); a module's own screen once the network is quiet.
            if (await marker.evaluate((m) => m.hasAttribute("data-custom"))) await page.waitForLoadState("networkidle").catch(() => undefined);
            else await page.waitForFunction((sel) => (document.querySelector(`${sel} [data-testid=total]`)?.textContent ?? "") !== "", `main [data-screen="${e.module}.${e.name}"]`);
            screens += 1;
            const texts = await readable(page, "main");
            if (process.env.DEBUG_WORDS === `${e.module}.${e.name}`) console.log(lang, JSON.stringify(texts));
            for (const hit of found(texts, keys[lang])) problems.push(`${lang} ${e.module}.${e.name} screen: ${hit}`);
            // axe on every screen, in Russian (the longer words; the same markup in English).
            if (lang === "ru") for (const f of await axeFindings(page)) problems.push(`axe on ${e.module}.${e.name}: ${f}`);
            // The form, once (in Russian): every label, help, choice and the Advanced section.
            const add = page.locator("main").getByRole("button", { name: lang === "ru" ? /^Добавить: / : /^Add / }).first();
            if (lang === "ru" && e.ops.create && (await add.count())) {
              await add.click();
              const dialog = page.getByRole("dialog");
              await dialog.waitFor();
              await dialog.locator("form").first().waitFor();
              const advanced = dialog.getByTestId("advanced-fields");
              if (await advanced.count()) await advanced.first().locator("summary").click();
              for (const hit of found(await readable(page, "[role=dialog]"), keys[lang])) problems.push(`${lang} ${e.module}.${e.name} form: ${hit}`);
              for (const f of await axeFindings(page)) problems.push(`axe on the form of ${e.module}.${e.name}: ${f}`);
              if (!axed && e.module === "blog" && e.name === "article") {
                await screen(page, "admin-words-form-ru");
              }
              await page.keyboard.press("Escape");
              await dialog.waitFor({ state: "detached" });
              screens += 1;
            }
            if (!axed && e.module === "blog" && e.name === "article") {
              await screen(page, `admin-words-table-${lang}`);
              axed = true;
            }
          }
        }
      };
      const halves = [0, 1].map((k) => meta.entities.filter((_, i) => i % 2 === k));
      await Promise.all(pages.map((page, k) => walk(page, halves[k], k === 0)));
      expect(screens > meta.entities.length * 2, `only ${screens} screens were read for ${meta.entities.length} entities`);
      console.log(`    (${screens} admin screens read in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      // (The runner shows an error's first lines only: the whole list goes to the log.)
      for (const p of problems) console.log(`    raw key: ${p}`);
      expect(problems.length === 0, `raw keys on admin screens:\n      ${problems.slice(0, 60).join("\n      ")}${problems.length > 60 ? `\n      … and ${problems.length - 60} more` : ""}`);
    },
  ],
];
