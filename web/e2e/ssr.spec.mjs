// Server rendering (issue 16): the HTML itself carries each page's text (no JavaScript needed),
// hydration on the public pages in both languages logs no error or warning, navigation after it
// stays in the page (no document load), and finished pages come compressed with an ETag.
import { expect, screen } from "./harness.mjs";

const YEAR = new Date().getFullYear();

/** Block headings, FAQ questions and the footer of the demo's home page, per language. */
const HOME_TEXT = {
  ru: ["Посадим миллион деревьев вместе", "Как это работает", "О нас пишут", "Посадите дерево сейчас", "Выберите свой вклад", "Где мы сажаем", "Реквизиты фонда", "Частые вопросы", "Куда идут деньги?", "Напишите нам", `© ${YEAR} Все права защищены`],
  en: ["Let&#x27;s plant a million trees together", "How it works", "In the press", "Plant a tree now", "Choose your contribution", "Where we plant", "Foundation bank details", "Frequently asked questions", "Where does the money go?", "Write to us", `© ${YEAR}`],
};

/** Public pages of the demo: home, blog, an article, the store, a product. */
const PAGES = ["/", "/blog", "/blog/articles/how-we-plant", "/ecommerce", "/ecommerce/products/tree"];

/** The markup inside `#root` as the server sent it (scripts and the bundle left out). */
function rootOf(html) {
  const at = html.indexOf('<div id="root">');
  // React separates adjacent text with empty comments (`© <!-- -->2026`).
  return at < 0 ? "" : html.slice(at + 15).replaceAll("<!-- -->", "");
}

export const ssrSpecs = [
  [
    "server HTML: every block heading, the FAQ and the footer without JavaScript, in both languages",
    async (stack) => {
      for (const lang of ["ru", "en"]) {
        const res = await fetch(`${stack.base}/${lang}/`);
        const root = rootOf(await res.text());
        for (const t of HOME_TEXT[lang]) expect(root.includes(t), `/${lang}/ server HTML contains "${t}"`);
      }
      for (const lang of ["ru", "en"])
        for (const p of PAGES.slice(1)) {
          const root = rootOf(await (await fetch(`${stack.base}/${lang}${p}`)).text());
          expect(root.length > 2000 && root.includes("<main"), `/${lang}${p} is rendered on the server (${root.length} chars)`);
        }
      // Titles in the page's language; a page showing one record is titled by it.
      for (const [path, title] of [
        ["/en/blog/articles/how-we-plant", "<title>How we plant trees</title>"],
        ["/ru/blog/articles/how-we-plant", "<title>Как мы сажаем деревья</title>"],
      ]) {
        const html = await (await fetch(`${stack.base}${path}`)).text();
        expect(html.includes(title), `${path} has ${title}`);
      }
      // A browser without JavaScript sees the page.
      const context = await stack.browser.newContext({ javaScriptEnabled: false, baseURL: stack.base });
      const page = await context.newPage();
      await page.goto("/ru/");
      await page.getByRole("heading", { name: "Посадим миллион деревьев вместе" }).waitFor();
      expect(await page.getByText("Куда идут деньги?").isVisible(), "the FAQ question is visible without JavaScript");
      await page.screenshot({ path: `${process.cwd()}/e2e/artifacts/ssr-no-js-ru.png`, fullPage: false });
      await context.close();
    },
  ],
  [
    "finished pages come compressed with an ETag, and 304 when unchanged",
    async (stack) => {
      const first = await fetch(`${stack.base}/ru/blog`, { headers: { "accept-encoding": "br" } });
      expect(first.status === 200, `status ${first.status}`);
      expect(first.headers.get("content-encoding") === "br", `brotli (${first.headers.get("content-encoding")})`);
      const etag = first.headers.get("etag");
      expect(/^"[0-9a-f]{32}-br"$/.test(etag ?? ""), `strong ETag of the brotli body (${etag})`);
      const again = await fetch(`${stack.base}/ru/blog`, { headers: { "if-none-match": etag, "accept-encoding": "br" } });
      expect(again.status === 304, `304 for the same ETag (${again.status})`);
      const asset = (await first.text()).match(/\/assets\/index-[\w-]+\.js/)?.[0];
      expect(Boolean(asset), "the page names its entry script");
      const js = await fetch(`${stack.base}${asset}`, { headers: { "accept-encoding": "gzip, br" } });
      expect(js.headers.get("content-encoding") === "br", `the entry script is sent precompressed (${js.headers.get("content-encoding")})`);
    },
  ],
  [
    "hydration is clean on home, blog, article, store and product pages in ru and en; links navigate in the page",
    async (stack) => {
      const context = await stack.browser.newContext({ baseURL: stack.base, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const said = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") said.push(`${m.type()} on ${page.url()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => said.push(`uncaught on ${page.url()}: ${e.message}`));
      for (const lang of ["ru", "en"])
        for (const p of PAGES) {
          const url = `/${lang}${p === "/" ? "/" : p}`;
          await page.goto(url, { waitUntil: "networkidle" });
          const hydrated = await page.evaluate(() => Object.keys(document.getElementById("root") ?? {}).some((k) => k.startsWith("__reactContainer")));
          expect(hydrated, `${url}: React took over the server's HTML`);
        }
      expect(said.length === 0, `hydration said nothing:\n${said.join("\n")}`);
      // After hydration a link is a client-side navigation: the document stays.
      await page.goto("/ru/", { waitUntil: "networkidle" });
      await page.evaluate(() => {
        window.stoaSameDocument = true;
      });
      await page.locator('header a[href="/ru/blog"]').first().click();
      await page.waitForURL("**/ru/blog");
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      expect(await page.evaluate(() => window.stoaSameDocument === true), "navigating to the blog did not load a new document");
      await screen(page, "ssr-blog-after-client-navigation");
      expect(said.length === 0, `navigation said nothing:\n${said.join("\n")}`);
      await context.close();
    },
  ],
];
