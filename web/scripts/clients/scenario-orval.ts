// The scenario with orval's fetch client (generated into .out/orval by run.sh; the base URL comes
// from STOA_BASE_URL at run time).
import {
  authLogin,
  createBlogArticle,
  deleteBlogArticle,
  findBlogArticle,
  getBlogArticle,
  updateBlogArticle,
  type BlogArticle,
  type BlogArticleCreate,
  type BlogArticleFilters,
  type Error as ApiError,
} from "./.out/orval/stoa";
import { BAD_SLUG, DESCRIPTION, Steps, check, checkCreated, checkErrorBody, checkTitles, email, eq, password, uniqueSlug } from "./scenario-common";

async function main(): Promise<void> {
  const s = new Steps("orval");
  const slug = uniqueSlug("orval");
  const title = { en: "Generated client (orval)", ru: "Сгенерированный клиент (orval)" };
  let auth: RequestInit = {};
  let article: BlogArticle | undefined;

  await s.step("1 sign in (authLogin)", async () => {
    const r = await authLogin({ login: email, password });
    check(r.status === 201, `authLogin status ${r.status}: ${JSON.stringify(r.data)}`);
    const jwt: string = r.data.data.jwt;
    check(jwt.split(".").length === 3, `authLogin: jwt is not a JWT: ${jwt}`);
    auth = { headers: { Authorization: `Bearer ${jwt}` } };
  });

  await s.step("2 create an article (createBlogArticle)", async () => {
    const body: BlogArticleCreate = { slug, title, description: DESCRIPTION };
    const r = await createBlogArticle(body, auth);
    check(r.status === 201, `createBlogArticle status ${r.status}: ${JSON.stringify(r.data)}`);
    article = r.data.data;
    checkCreated(article, slug, title);
  });

  await s.step("3 read it back (getBlogArticle)", async () => {
    check(article, "no article (step 2 failed)");
    const r = await getBlogArticle(article.id, auth);
    check(r.status === 200, `getBlogArticle status ${r.status}: ${JSON.stringify(r.data)}`);
    checkTitles(r.data.data, title);
  });

  await s.step("4 filter the list by slug (findBlogArticle, filters as JSON)", async () => {
    check(article, "no article (step 2 failed)");
    const filters: BlogArticleFilters = { and: [{ column: "slug", method: "eq", value: slug }] };
    const r = await findBlogArticle({ filters: JSON.stringify(filters) }, auth);
    check(r.status === 200, `findBlogArticle status ${r.status}: ${JSON.stringify(r.data)}`);
    const rows = r.data.data;
    eq(rows.map((a) => a.slug), [slug], "the slugs found");
    eq(rows[0]?.id, article.id, "the id found");
  });

  await s.step("5 patch the English title (updateBlogArticle) and read back", async () => {
    check(article, "no article (step 2 failed)");
    const en = "Generated client (orval), patched";
    const r = await updateBlogArticle(article.id, { title: { ...title, en } }, auth);
    check(r.status === 200, `updateBlogArticle status ${r.status}: ${JSON.stringify(r.data)}`);
    eq(r.data.data.title.en, en, "patched title.en");
    const back = await getBlogArticle(article.id, auth);
    check(back.status === 200, `getBlogArticle after the patch: status ${back.status}`);
    eq(back.data.data.title, { ...title, en }, "title read back");
  });

  await s.step("6 an invalid slug gives a 422 Error naming the field", async () => {
    const r = await createBlogArticle({ slug: BAD_SLUG, title }, auth);
    check(r.status === 422, `status ${r.status}: ${JSON.stringify(r.data)}`);
    const err: ApiError = r.data;
    checkErrorBody(err, 422, "422");
    check(err.fields && Array.isArray(err.fields.slug) && err.fields.slug.length > 0, `Error.fields does not name slug: ${JSON.stringify(err)}`);
  });

  await s.step("7 the same slug again gives a 409 Error", async () => {
    check(article, "no article (step 2 failed)");
    const r = await createBlogArticle({ slug, title }, auth);
    check(r.status === 409, `status ${r.status}: ${JSON.stringify(r.data)}`);
    const err: ApiError = r.data;
    checkErrorBody(err, 409, "409");
  });

  await s.step("8 delete it (deleteBlogArticle); then get gives a 404 Error", async () => {
    check(article, "no article (step 2 failed)");
    const r = await deleteBlogArticle(article.id, auth);
    check(r.status === 200, `deleteBlogArticle status ${r.status}: ${JSON.stringify(r.data)}`);
    eq(r.data.data.id, article.id, "deleted id");
    const gone = await getBlogArticle(article.id, auth);
    check(gone.status === 404, `get after delete: status ${gone.status}`);
    const err: ApiError = gone.data;
    checkErrorBody(err, 404, "404");
  });

  s.finish();
}

void main();
