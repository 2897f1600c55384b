// The scenario with the @hey-api/openapi-ts fetch client (generated into .out/heyapi by run.sh).
import { createClient } from "./.out/heyapi/client";
import { authLogin, createBlogArticle, deleteBlogArticle, findBlogArticle, getBlogArticle, updateBlogArticle } from "./.out/heyapi/sdk.gen";
import type { BlogArticle, BlogArticleCreate, BlogArticleFilters, Error as ApiError } from "./.out/heyapi/types.gen";
import { BAD_SLUG, DESCRIPTION, Steps, base, check, checkCreated, checkErrorBody, checkTitles, email, eq, password, uniqueSlug } from "./scenario-common";

async function main(): Promise<void> {
  const s = new Steps("heyapi");
  const client = createClient({ baseUrl: base });
  const slug = uniqueSlug("heyapi");
  const title = { en: "Generated client (hey-api)", ru: "Сгенерированный клиент (hey-api)" };
  let article: BlogArticle | undefined;

  await s.step("1 sign in (authLogin)", async () => {
    const r = await authLogin({ client, body: { login: email, password } });
    eq(r.response?.status, 201, "authLogin status");
    check(r.data, `authLogin: no data (error ${JSON.stringify(r.error)})`);
    // A 200 would carry a second-factor challenge instead (this account has none).
    const signedIn = r.data.data;
    if (!("jwt" in signedIn)) throw new Error(`authLogin asked for a second factor: ${JSON.stringify(signedIn)}`);
    const jwt: string = signedIn.jwt;
    check(jwt.split(".").length === 3, `authLogin: jwt is not a JWT: ${jwt}`);
    // The operations name their security schemes; the client sends the token for bearerAuth.
    client.setConfig({ auth: (scheme) => (scheme.scheme === "bearer" ? jwt : undefined) });
  });

  await s.step("2 create an article (createBlogArticle)", async () => {
    const body: BlogArticleCreate = { slug, title, description: DESCRIPTION };
    const r = await createBlogArticle({ client, body });
    eq(r.response?.status, 201, `createBlogArticle status (${JSON.stringify(r.error)})`);
    check(r.data, "createBlogArticle: no data");
    article = r.data.data;
    checkCreated(article, slug, title);
  });

  await s.step("3 read it back (getBlogArticle)", async () => {
    check(article, "no article (step 2 failed)");
    const r = await getBlogArticle({ client, path: { id: article.id } });
    eq(r.response?.status, 200, "getBlogArticle status");
    check(r.data, "getBlogArticle: no data");
    checkTitles(r.data.data, title);
  });

  await s.step("4 filter the list by slug (findBlogArticle, filters as JSON)", async () => {
    check(article, "no article (step 2 failed)");
    const filters: BlogArticleFilters = { and: [{ column: "slug", method: "eq", value: slug }] };
    const r = await findBlogArticle({ client, query: { filters: JSON.stringify(filters) } });
    eq(r.response?.status, 200, `findBlogArticle status (${JSON.stringify(r.error)})`);
    check(r.data, "findBlogArticle: no data");
    const rows = r.data.data;
    eq(rows.map((a) => a.slug), [slug], "the slugs found");
    eq(rows[0]?.id, article.id, "the id found");
  });

  await s.step("5 patch the English title (updateBlogArticle) and read back", async () => {
    check(article, "no article (step 2 failed)");
    const en = "Generated client (hey-api), patched";
    const r = await updateBlogArticle({ client, path: { id: article.id }, body: { title: { ...title, en } } });
    eq(r.response?.status, 200, `updateBlogArticle status (${JSON.stringify(r.error)})`);
    check(r.data, "updateBlogArticle: no data");
    eq(r.data.data.title.en, en, "patched title.en");
    const back = await getBlogArticle({ client, path: { id: article.id } });
    check(back.data, "getBlogArticle after the patch: no data");
    eq(back.data.data.title, { ...title, en }, "title read back");
  });

  await s.step("6 an invalid slug gives a 422 Error naming the field", async () => {
    const r = await createBlogArticle({ client, body: { slug: BAD_SLUG, title } });
    eq(r.response?.status, 422, "status");
    check(r.error, "no error body");
    const err: ApiError = r.error;
    checkErrorBody(err, 422, "422");
    check(err.fields && Array.isArray(err.fields.slug) && err.fields.slug.length > 0, `Error.fields does not name slug: ${JSON.stringify(err)}`);
  });

  await s.step("7 the same slug again gives a 409 Error", async () => {
    check(article, "no article (step 2 failed)");
    const r = await createBlogArticle({ client, body: { slug, title } });
    eq(r.response?.status, 409, "status");
    check(r.error, "no error body");
    const err: ApiError = r.error;
    checkErrorBody(err, 409, "409");
  });

  await s.step("8 delete it (deleteBlogArticle); then get gives a 404 Error", async () => {
    check(article, "no article (step 2 failed)");
    const r = await deleteBlogArticle({ client, path: { id: article.id } });
    eq(r.response?.status, 200, `deleteBlogArticle status (${JSON.stringify(r.error)})`);
    check(r.data, "deleteBlogArticle: no data");
    eq(r.data.data.id, article.id, "deleted id");
    const gone = await getBlogArticle({ client, path: { id: article.id } });
    eq(gone.response?.status, 404, "get after delete status");
    check(gone.error, "no error body");
    const err: ApiError = gone.error;
    checkErrorBody(err, 404, "404");
  });

  s.finish();
}

void main();
