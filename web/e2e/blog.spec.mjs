// The blog as a publication and the public widgets of billing, notification, analytic, startup and
// rbac's members, in ru and en, on a desktop and a phone. The specs add what the demo lacks through
// the admin API (an article with headings and lists and no cover, an older one with a cover, a page
// of the new widgets, a public profile), then look as a visitor.
import { expect, screen, SECRET_KEY, watchedContext } from "./harness.mjs";

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const VIEWS = [
  ["desktop", DESKTOP],
  ["phone", PHONE],
];
const READ = { ru: /\d+ мин чтения/, en: /\d+ min read/ };

const headers = { "content-type": "application/json", "x-rbac-secret-key": SECRET_KEY };

/** An admin call through the secret key; the answer's `data`. */
async function call(stack, method, path, body) {
  const res = await fetch(`${stack.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  expect(res.ok, `${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text).data;
}

const eq = (column, value) => `filters=${encodeURIComponent(JSON.stringify({ and: [{ column, method: "eq", value }] }))}`;

const text = (t) => ({ type: "text", text: t });
const para = (t) => ({ type: "paragraph", content: [text(t)] });
const h = (level, t) => ({ type: "heading", attrs: { level }, content: [text(t)] });
const list = (...items) => ({ type: "bulletList", content: items.map((t) => ({ type: "listItem", content: [para(t)] })) });
const quote = (t) => ({ type: "blockquote", content: [para(t)] });
const filler = (sentence, n) => Array.from({ length: n }, () => sentence).join(" ");

/** A long article with headings, a list and a quote (about four minutes to read). */
function diary(lang) {
  const ru = lang === "ru";
  const body = filler(ru ? "Волонтёры приехали на участок рано утром и до обеда посадили ровные ряды молодых сосен." : "Volunteers reached the plot early in the morning and planted even rows of young pines before lunch.", 14);
  return {
    type: "doc",
    content: [
      para(body),
      h(2, ru ? "Что мы посадили" : "What we planted"),
      para(body),
      list(ru ? "Сосна обыкновенная" : "Scots pine", ru ? "Берёза повислая" : "Silver birch", ru ? "Дуб черешчатый" : "English oak"),
      h(3, ru ? "Почва и погода" : "Soil and weather"),
      para(body),
      quote(ru ? "Каждое дерево — это чей-то вклад в будущий лес." : "Every tree is someone's share of a future forest."),
      para(body),
    ],
  };
}

/** The article cards of the "All articles" block, top to bottom. */
async function cards(page) {
  const block = page.locator('[data-variant="article-list-default"]');
  await block.getByTestId("article-card").first().waitFor();
  return block.getByTestId("article-card");
}

async function noOverflow(page, what) {
  const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(scroll <= inner, `${what}: no horizontal overflow (${scroll} > ${inner})`);
}

async function clean(w) {
  expect(w.problems.length === 0, w.problems.join("\n"));
  await w.context.close();
}

export const blogSpecs = [
  [
    "publication: blog: the admin adds an article with headings and no cover, an older one with a cover, and a page of the new widgets",
    async (stack, s) => {
      const news = (await call(stack, "GET", `/api/blog/categories?${eq("slug", "news")}`))[0];
      expect(news, "the demo's News category");
      const file = (await call(stack, "GET", "/api/blog/articles-to-file-storage-module-files?limit=1"))[0];
      expect(file, "a demo article's cover");
      const diaryArticle = await call(stack, "POST", "/api/blog/articles", {
        slug: "e2e-planting-diary",
        status: "published",
        publishAt: "2026-11-20T09:00:00Z",
        title: { ru: "Дневник весенней посадки", en: "A spring planting diary" },
        subtitle: { ru: "Три дня в сосновом питомнике", en: "Three days at the pine nursery" },
        description: { ru: diary("ru"), en: diary("en") },
      });
      await call(stack, "POST", "/api/blog/categories-to-articles", { categoryId: news.id, articleId: diaryArticle.id });
      const older = await call(stack, "POST", "/api/blog/articles", {
        slug: "e2e-autumn-count",
        status: "published",
        publishAt: "2026-10-02T09:00:00Z",
        title: { ru: "Осенний подсчёт саженцев", en: "The autumn sapling count" },
        subtitle: { ru: "Сколько деревьев пережили лето", en: "How many trees lived through the summer" },
        description: { ru: "Мы пересчитали саженцы на всех участках.", en: "We counted the saplings on every plot." },
      });
      await call(stack, "POST", "/api/blog/articles-to-file-storage-module-files", { articleId: older.id, fileStorageModuleFileId: file.fileStorageModuleFileId });

      // A page of the new widgets, in the main layout.
      const layout = (await call(stack, "GET", `/api/host/layouts?${eq("slug", "main")}`))[0];
      const page = await call(stack, "POST", "/api/host/pages", { url: "/e2e-project", title: "Проект", description: "Проект в цифрах", language: "ru" });
      await call(stack, "POST", "/api/host/pages-to-layouts", { pageId: page.id, layoutId: layout.id });
      const widgets = [
        ["startup", { title: { ru: "Миллион деревьев к 2030 году", en: "A million trees by 2030" }, subtitle: { ru: "Сажаем там, где лес сгорел или вырублен", en: "We plant where forest burned or was cut" } }],
        ["analytic", {}],
        ["billing", {}],
        ["notification", {}],
      ];
      for (const [i, [module, fields]] of widgets.entries()) {
        const own = await call(stack, "POST", `/api/${module}/widgets`, { adminTitle: `E2E ${module}`, ...fields });
        const host = await call(stack, "POST", "/api/host/widgets", { adminTitle: `E2E ${module} block` });
        await call(stack, "POST", "/api/host/widgets-to-external-widgets", { widgetId: host.id, externalModule: module, externalWidgetId: own.id });
        await call(stack, "POST", "/api/host/pages-to-widgets", { pageId: page.id, widgetId: host.id, orderIndex: i });
      }
      await call(stack, "POST", "/api/social/profiles", { slug: "e2e-anna", title: { ru: "Анна Лесная", en: "Anna Lesnaya" } });
      // An account's page matches only an existing account's slug (the admin's, here).
      const subject = (await call(stack, "GET", "/api/rbac/subjects?limit=1"))[0];
      expect(subject?.slug, "an account to open the page of");
      s.blog = { diary: diaryArticle, older, subject: subject.slug };
    },
  ],
  [
    "publication: blog: the list is newest first with dates and reading times, and a card without a cover is compact (ru, en; desktop, phone)",
    async (stack) => {
      for (const [view, viewport] of VIEWS) {
        const w = await watchedContext(stack, { viewport });
        const { page } = w;
        for (const lang of ["ru", "en"]) {
          await page.goto(`/${lang}/blog`);
          const all = await cards(page);
          const n = await all.count();
          expect(n >= 5, `${lang}/${view}: five articles or more, got ${n}`);
          const dates = await all.locator("time").evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime")));
          expect(dates.length === n, `${lang}/${view}: every card has a date (${dates.length} of ${n})`);
          const times = dates.map((d) => Date.parse(d));
          expect(
            times.every((t, i) => i === 0 || times[i - 1] >= t),
            `${lang}/${view}: newest first, got ${dates.join(", ")}`,
          );
          const first = await all.first().getByTestId("article-meta").textContent();
          expect(READ[lang].test(first), `${lang}/${view}: a reading time on the card ("${first}")`);
          // Any month of the page's language: the newest article is as old as the run's day.
          const months =
            lang === "ru"
              ? /\d{1,2} (января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря) \d{4}/
              : /\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}/;
          expect(months.test(first), `${lang}/${view}: the date in the page's language ("${first}")`);
          // The diary (no cover) is compact; the autumn count (a cover) is not.
          const diaryTitle = lang === "ru" ? "Дневник весенней посадки" : "A spring planting diary";
          const countTitle = lang === "ru" ? "Осенний подсчёт саженцев" : "The autumn sapling count";
          const compact = all.filter({ hasText: diaryTitle });
          const covered = all.filter({ hasText: countTitle });
          expect((await compact.getAttribute("data-layout")) === "compact", `${lang}/${view}: the diary's card is compact`);
          expect((await compact.locator("img").count()) === 0, `${lang}/${view}: a compact card has no picture box`);
          expect((await covered.getAttribute("data-layout")) === "cover", `${lang}/${view}: the autumn count has its cover`);
          const [hc, hv] = [(await compact.boundingBox()).height, (await covered.boundingBox()).height];
          expect(hc < hv * 0.7, `${lang}/${view}: the compact card (${hc}px) is well under the one with a cover (${hv}px)`);
          await noOverflow(page, `/${lang}/blog on a ${view}`);
          await screen(page, `blog-list-${lang}-${view}`);
        }
        await clean(w);
      }
    },
  ],
  [
    "publication: blog: an article shows its date, reading time, styled headings and what to read next (ru, en; desktop, phone)",
    async (stack) => {
      for (const [view, viewport] of VIEWS) {
        const w = await watchedContext(stack, { viewport });
        const { page } = w;
        for (const lang of ["ru", "en"]) {
          await page.goto(`/${lang}/blog/articles/e2e-planting-diary`);
          const article = page.getByTestId("article");
          await article.getByRole("heading", { level: 1 }).waitFor();
          const meta = await article.getByTestId("article-meta").textContent();
          expect((lang === "ru" ? /20 ноября 2026/ : /20 November 2026/).test(meta), `${lang}/${view}: the publication date ("${meta}")`);
          const minutes = Number(/(\d+) (мин|min)/.exec(meta)?.[1]);
          expect(minutes >= 2 && minutes <= 8, `${lang}/${view}: a reading time counted from the text ("${meta}")`);
          const h2 = article.getByRole("heading", { level: 2, name: lang === "ru" ? "Что мы посадили" : "What we planted" });
          const [hSize, pSize, hWeight] = await h2.evaluate((el) => {
            const p = el.parentElement.querySelector("p");
            return [parseFloat(getComputedStyle(el).fontSize), parseFloat(getComputedStyle(p).fontSize), Number(getComputedStyle(el).fontWeight)];
          });
          expect(hSize >= pSize * 1.3 && hWeight >= 600, `${lang}/${view}: the h2 stands out (${hSize}px/${hWeight} vs body ${pSize}px)`);
          expect((await article.locator("ul > li").count()) === 3, `${lang}/${view}: the list`);
          expect((await article.locator("blockquote").count()) === 1, `${lang}/${view}: the quote`);
          const related = page.getByTestId("related-articles");
          await related.waitFor();
          const links = await related.getByRole("link").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
          expect(links.length >= 1 && links.length <= 3, `${lang}/${view}: one to three related articles, got ${links.length}`);
          expect(!links.some((l) => l.endsWith("/e2e-planting-diary")), `${lang}/${view}: never the article itself`);
          // The same category (News) comes first: the season's first report or how we plant.
          expect(/\/(first-report|how-we-plant)$/.test(links[0]), `${lang}/${view}: a News article first, got ${links.join(", ")}`);
          await noOverflow(page, `the article in ${lang} on a ${view}`);
          await screen(page, `blog-article-${lang}-${view}`);
        }
        await clean(w);
      }
    },
  ],
  [
    "publication: widgets: startup, analytic, billing and notification render for a visitor (ru, en; desktop, phone)",
    async (stack) => {
      for (const [view, viewport] of VIEWS) {
        const w = await watchedContext(stack, { viewport });
        const { page } = w;
        for (const lang of ["ru", "en"]) {
          await page.goto(`/${lang}/e2e-project`);
          await page.getByTestId("startup-landing").getByRole("heading", { name: lang === "ru" ? "Миллион деревьев к 2030 году" : "A million trees by 2030" }).waitFor();
          const articles = page.getByTestId("counter-articles");
          await articles.getByText(lang === "ru" ? /статей в блоге|статьи в блоге/ : /articles in the blog/).waitFor();
          const count = Number((await articles.textContent()).replace(/\D/g, ""));
          expect(count >= 5, `${lang}/${view}: the articles counter counts the blog (${count})`);
          await page.getByTestId("counter-trees").getByText(lang === "ru" ? /оплачено на сайте/ : /paid for on this site/).waitFor();
          const methods = page.getByTestId("payment-methods");
          await methods.getByText(lang === "ru" ? "Тестовая оплата" : "Test payment").waitFor();
          await methods.getByText("CloudPayments").waitFor();
          const form = page.getByTestId("subscribe-updates");
          expect(await form.getByRole("button", { name: lang === "ru" ? "Подписаться" : "Subscribe" }).isDisabled(), `${lang}/${view}: subscribing is off until the server can take it`);
          await form.getByText(lang === "ru" ? /скоро откроется/ : /coming soon/).waitFor();
          await noOverflow(page, `the widgets page in ${lang} on a ${view}`);
          await screen(page, `widgets-${lang}-${view}`);
        }
        await clean(w);
      }
    },
  ],
  [
    "publication: members: the subject list shows public profiles by name, and an account's page says accounts are private (ru, en)",
    async (stack, s) => {
      for (const [view, viewport] of VIEWS) {
        const w = await watchedContext(stack, { viewport });
        const { page } = w;
        for (const lang of ["ru", "en"]) {
          await page.goto(`/${lang}/rbac/subjects`);
          const members = page.getByTestId("members");
          const name = lang === "ru" ? "Анна Лесная" : "Anna Lesnaya";
          await members.getByText(name).waitFor();
          const link = members.getByRole("link", { name: new RegExp(name) });
          expect((await link.getAttribute("href")) === `/${lang}/social/profiles/e2e-anna`, `${lang}/${view}: the card leads to the public profile`);
          expect(!/[0-9a-f]{8}-[0-9a-f]{4}-/.test(await members.textContent()), `${lang}/${view}: no id on the cards`);
          await screen(page, `members-${lang}-${view}`);
          await page.goto(`/${lang}/rbac/subjects/${s.blog.subject}`);
          await page.getByTestId("subject-private").getByRole("heading", { name: lang === "ru" ? "Учётные записи участников закрыты" : "Member accounts are private" }).waitFor();
          await noOverflow(page, `an account's page in ${lang} on a ${view}`);
          await screen(page, `subject-private-${lang}-${view}`);
        }
        await clean(w);
      }
    },
  ],
];
