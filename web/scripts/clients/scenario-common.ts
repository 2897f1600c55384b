// The steps both TypeScript scenarios share: settings from run.sh's env, a step runner that goes
// on after a failed step (later steps that need its result fail too) and the checks.

export const base = need("STOA_BASE_URL");
export const email = need("STOA_EMAIL");
export const password = need("STOA_PASSWORD");

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run scripts/clients/run.sh)`);
  return v;
}

/** A slug no earlier run used. */
export function uniqueSlug(tag: string): string {
  return `clients-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export const BAD_SLUG = "Not A Slug!";

/** The rich-text description the scenarios send: one TipTap document in English. */
export const DESCRIPTION = {
  en: { type: "doc" as const, content: [{ type: "paragraph", content: [{ type: "text", text: "Hi" }] }] },
};

export class Check extends Error {}

export function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Check(what);
}

export function eq(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Check(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** The article as either generated client types it (what the checks below read). */
interface ArticleLike {
  slug: string;
  title: { [language: string]: string | null };
  description: { [language: string]: { type?: string } | undefined };
}

/** Step 2's checks of the article the server answered with. */
export function checkCreated(article: ArticleLike, slug: string, title: { en: string; ru: string }): void {
  eq(article.slug, slug, "created slug");
  eq(article.title, title, "created title");
  eq(article.description.en?.type, "doc", "created description.en.type");
}

/** Step 3's checks: both languages read back. */
export function checkTitles(article: ArticleLike, title: { en: string; ru: string }): void {
  eq(article.title.en, title.en, "title.en");
  eq(article.title.ru, title.ru, "title.ru");
}

/** The fields every error body has (the Error schema), checked at run time too. */
export function checkErrorBody(body: unknown, status: number, what: string): void {
  check(body && typeof body === "object", `${what}: the error body is not an object: ${JSON.stringify(body)}`);
  const b = body as Record<string, unknown>;
  eq(b.status, status, `${what}: Error.status`);
  check(typeof b.code === "string" && b.code.length > 0, `${what}: Error.code is not a string: ${JSON.stringify(b)}`);
  check(typeof b.error === "string", `${what}: Error.error is not a string: ${JSON.stringify(b)}`);
  check(typeof b.requestId === "string" && b.requestId.length > 0, `${what}: Error.requestId is not a string: ${JSON.stringify(b)}`);
}

export class Steps {
  private passed = 0;
  private failed = 0;
  constructor(private readonly name: string) {}

  async step(title: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
      this.passed++;
      console.log(`  ok    ${this.name}: ${title}`);
    } catch (e) {
      this.failed++;
      const msg = e instanceof Check ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
      console.log(`  FAIL  ${this.name}: ${title}\n        ${msg.split("\n").join("\n        ")}`);
    }
  }

  finish(): never {
    console.log(`${this.name}: ${this.passed} passed, ${this.failed} failed`);
    process.exit(this.failed === 0 ? 0 : 1);
  }
}
