import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { EntityMeta, Meta } from "@/api/meta";
import { entityMeta, field as f } from "@/test-meta";
import { reply, stubFetch } from "@/test-fetch";
import { EntityForm } from "./form";
import { recordsEn, recordsRu, recordsT } from "./records-i18n";
import { type Checks, entitySchema, fieldProblem, initialValues, payload, recordProblems, serverFieldMessage, UniqueChecker, Unparsed } from "./schema";

const en: Checks = { t: recordsT("en"), create: true };
const ru: Checks = { t: recordsT("ru"), create: true };

/** blog.article as the server declares it, with the publishing fields. */
const article: EntityMeta = entityMeta(
  "blog",
  "article",
  "articles",
  [
    f("id", "uuid", { serverOwned: true, required: true, default: { type: "newId" } }),
    f("variant", "enum", { required: true, values: ["default"], default: { type: "text", value: "default" }, advanced: true }),
    f("adminTitle", "text", { required: true, maxLength: 500, default: { type: "randomTitle" }, advanced: true }),
    f("slug", "text", { required: true, unique: true, format: "slug", maxLength: 200, default: { type: "randomSlug" }, advanced: true }),
    f("title", "translations", { required: true, default: { type: "json", value: "{}" } }),
    f("description", "rich_text", { required: true, default: { type: "emptyDoc" } }),
    f("status", "enum", { required: true, values: ["draft", "published", "scheduled"], default: { type: "text", value: "published" } }),
    f("publishAt", "timestamp"),
  ],
  { listColumns: ["adminTitle", "slug", "title"], ops: { create: true, update: true, delete: true, findOrCreate: false, bulk: false } },
);
const ID = "0191e6a4-0000-7000-8000-000000000001";

describe("the checks built from the declarations", () => {
  it("refuses a required field left empty unless the server fills it on create", () => {
    // `/api/meta` says `{type: "none"}` for a field without a default.
    const ref = f("pageId", "reference", { required: true, target: "host.page", default: { type: "none" } });
    expect(fieldProblem(ref, null, en)).toBe("Required");
    expect(fieldProblem(ref, null, ru)).toBe("Обязательное поле");
    expect(fieldProblem(ref, ID, en)).toBeNull();
    expect(fieldProblem(ref, "0191", en)).toBe("Enter an id (UUID)");
    const order = f("orderIndex", "int", { required: true, default: { type: "int", value: 0 } });
    expect(fieldProblem(order, null, en)).toBeNull();
    expect(fieldProblem(order, null, { ...en, create: false })).toBe("Required");
    expect(fieldProblem(order, 1.5, en)).toBe("Enter a whole number");
    // Required text may not be empty, with or without a default, except a new record's admin title
    // and slug (made from its title).
    expect(fieldProblem(article.fields[2]!, "", en)).toBeNull();
    expect(fieldProblem(article.fields[2]!, "", { ...en, create: false })).toBe("Required");
    expect(fieldProblem(f("url", "text", { required: true, default: { type: "text", value: "/" } }), "", en)).toBe("Required");
    expect(fieldProblem(f("note", "text"), "", en)).toBeNull();
  });

  it("refuses formats, lengths and values outside the declared list, in the admin's language", () => {
    const slug = article.fields[3]!;
    expect(fieldProblem(slug, "Not A Slug", en)).toBe("Use lower-case Latin letters, digits, - and _");
    expect(fieldProblem(slug, "Not A Slug", ru)).toBe("Только строчные латинские буквы, цифры, - и _");
    expect(fieldProblem(slug, "a-good_slug-2", en)).toBeNull();
    const email = f("email", "text", { format: "email" });
    expect(fieldProblem(email, "name@example", en)).toBe("Enter a valid email, like name@example.com");
    expect(fieldProblem(email, "na me@example.com", en)).not.toBeNull();
    expect(fieldProblem(email, "name@example.com", en)).toBeNull();
    // Characters as the server counts them (an emoji is one), with the plural form of the language.
    const short = f("code", "text", { maxLength: 3 });
    expect(fieldProblem(short, "🌳🌳🌳", en)).toBeNull();
    expect(fieldProblem(short, "abcd", en)).toBe("At most 3 characters");
    expect(fieldProblem(f("code", "text", { maxLength: 5 }), "abcdef", ru)).toBe("Не длиннее 5 символов");
    const kind = f("type", "enum", { required: true, values: ["one_off", "subscription"] });
    expect(fieldProblem(kind, "monthly", en)).toBe("Choose one of: one_off, subscription");
    expect(fieldProblem(kind, "subscription", en)).toBeNull();
    expect(fieldProblem(f("price", "decimal"), "12.5", en)).toBeNull();
    expect(fieldProblem(f("price", "decimal"), "12,5", en)).toBe("Enter a number");
  });

  it("refuses JSON and dates whose text does not parse", () => {
    expect(fieldProblem(f("data", "json"), new Unparsed('{"a": '), en)).toBe("Not valid JSON");
    expect(fieldProblem(f("data", "json"), { a: 1 }, en)).toBeNull();
    expect(fieldProblem(f("at", "timestamp"), new Unparsed("31.02.2026"), ru)).toBe("Формат ДД.ММ.ГГГГ ЧЧ:мм");
  });

  it("says a unique value is taken once the lookup found it", () => {
    const taken = (name: string, value: unknown) => name === "slug" && value === "trees";
    expect(fieldProblem(article.fields[3]!, "trees", { ...en, taken })).toBe("Already taken by another record; choose another");
    expect(fieldProblem(article.fields[3]!, "forest", { ...en, taken })).toBeNull();
  });

  it("a content entity's title needs a language on create; a scheduled record needs its time", () => {
    const start = initialValues(article, ["en", "ru"]);
    expect(start.status).toBe("draft");
    expect(recordProblems(article, start, { ...en, requireTitle: true })).toEqual({ title: "Enter the title in at least one language" });
    expect(recordProblems(article, { ...start, title: { en: "  " } }, { ...en, requireTitle: true }).title).toBeDefined();
    expect(recordProblems(article, { ...start, title: { ru: "Деревья" } }, { ...en, requireTitle: true })).toEqual({});
    expect(recordProblems(article, start, { ...en, requireTitle: false })).toEqual({});
    const scheduled = { ...start, title: { en: "Trees" }, status: "scheduled" };
    expect(recordProblems(article, scheduled, en)).toEqual({ publishAt: "Set the publication time of a scheduled record" });
    expect(recordProblems(article, { ...scheduled, publishAt: "2030-01-01T10:00:00.000Z" }, en)).toEqual({});
    // Through zod (what the form's resolver runs): the issue sits on the field.
    const result = entitySchema(article, { ...ru, requireTitle: true }).safeParse(start);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([["title", "Укажите заголовок хотя бы на одном языке"]]);
  });

  it("sends translations without their empty languages", () => {
    expect(payload(article, { ...initialValues(article, ["en", "ru"]), title: { en: "Trees", ru: "" } }).title).toEqual({ en: "Trees" });
  });

  it("puts the server's field messages in the same words", () => {
    expect(serverFieldMessage("is required", recordsT("ru"))).toBe("Обязательное поле");
    expect(serverFieldMessage("already taken", recordsT("en"))).toBe("Already taken by another record; choose another");
    expect(serverFieldMessage("must be lower-case letters, digits, '-' or '_'", recordsT("en"))).toBe("Use lower-case Latin letters, digits, - and _");
    expect(serverFieldMessage("'x' is not one of: a, b", recordsT("en"))).toBe("Choose one of: a, b");
    expect(serverFieldMessage("must be at most 200 characters", recordsT("en"))).toBe("At most 200 characters");
    expect(serverFieldMessage("something else", recordsT("en"))).toBe("something else");
  });

  it("has the same keys and interpolations in en and ru", () => {
    const flat = (o: object, p = ""): [string, string][] =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === "string" ? [[`${p}${k}`, v] as [string, string]] : flat(v as object, `${p}${k}.`)));
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).join(",");
    const a = new Map(flat(recordsEn));
    const b = new Map(flat(recordsRu));
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [k, v] of a) {
      expect(vars(b.get(k) ?? ""), k).toBe(vars(v));
      expect(b.get(k), k).not.toBe(v);
    }
  });
});

describe("the uniqueness lookup", () => {
  afterEach(() => vi.useRealTimers());

  it("asks once typing pauses, about the last value only, and remembers the answer", async () => {
    vi.useFakeTimers();
    const asked: string[] = [];
    const checker = new UniqueChecker(async (_name, value) => (asked.push(value), value === "trees"), 400);
    const heard: boolean[] = [];
    for (const v of ["t", "tr", "tre", "trees"]) {
      checker.schedule("slug", v, (x) => heard.push(x));
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(asked).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(asked).toEqual(["trees"]);
    expect(heard).toEqual([true]);
    expect(checker.taken("slug", "trees")).toBe(true);
    expect(checker.taken("slug", "tre")).toBe(false);
    // Known now: said at once, without asking again.
    checker.schedule("slug", "trees", (x) => heard.push(x));
    expect(heard).toEqual([true, true]);
    expect(await checker.check("slug", "trees")).toBe(true);
    expect(asked).toEqual(["trees"]);
  });

  it("does not ask about empty values, and counts a failed lookup as free", async () => {
    const lookup = vi.fn(async () => {
      throw new Error("offline");
    });
    const checker = new UniqueChecker(lookup, 0);
    expect(await checker.check("slug", "")).toBe(false);
    expect(lookup).not.toHaveBeenCalled();
    expect(await checker.check("slug", "x")).toBe(false);
    expect(checker.taken("slug", "x")).toBe(false);
  });
});

describe("the form refuses what the server would", () => {
  const meta: Meta = { languages: ["en", "ru"], modules: ["blog"], moduleLabels: {}, entities: [article] };
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  function renderForm(id: string | null = null) {
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <EntityForm entity={article} meta={meta} lang="en" id={id} />
      </QueryClientProvider>,
    );
  }

  it("stays on the form with the field's messages and sends nothing when required fields are empty", async () => {
    const sent = stubFetch(() => reply(200, { data: [] }));
    renderForm();
    const form = screen.getByRole("form", { name: "New article" });
    expect(within(form).getByLabelText("Status")).toHaveValue("draft");
    // The admin title and slug wait, empty and closed under 'Advanced', to be made from the title.
    expect(within(form).getByTestId("advanced-fields")).not.toHaveAttribute("open");
    expect(within(form).getByLabelText("Admin title")).toHaveValue("");
    await userEvent.click(within(form).getByRole("button", { name: "Create" }));
    const title = form.querySelector('[data-field="title"]') as HTMLElement;
    expect(await within(title).findByText("Enter the title in at least one language")).toBeInTheDocument();
    expect(within(form).getByTestId("form-error")).toHaveTextContent("Title: Enter the title in at least one language");
    expect(within(form).getByTestId("advanced-fields")).not.toHaveAttribute("open");
    expect(sent.filter((s) => s.method !== "GET")).toEqual([]);
    // Scheduled without a time is refused too.
    await userEvent.selectOptions(within(form).getByLabelText("Status"), "scheduled");
    await userEvent.click(within(form).getByRole("button", { name: "Failed" }));
    const at = form.querySelector('[data-field="publishAt"]') as HTMLElement;
    expect(await within(at).findByText("Set the publication time of a scheduled record")).toBeInTheDocument();
    expect(sent.filter((s) => s.method !== "GET")).toEqual([]);
  });

  it("checks a unique field as it is typed, once typing pauses, ignoring the record itself", async () => {
    const sent = stubFetch((s) => {
      if (s.method === "GET" && s.url.startsWith(`/api/blog/articles/${ID}`)) return reply(200, { data: { id: ID, adminTitle: "Trees", slug: "trees", title: { en: "Trees" }, variant: "default", status: "published", publishAt: null, description: {} } });
      const taken = decodeURIComponent(s.url).includes('"value":"forest"');
      return reply(200, { data: taken ? [{ id: "0191e6a4-0000-7000-8000-000000000002" }] : [] });
    });
    renderForm(ID);
    const form = await screen.findByRole("form", { name: "Edit article" });
    const slug = await within(form).findByDisplayValue("trees");
    await userEvent.clear(slug);
    await userEvent.type(slug, "forest");
    const field = form.querySelector('[data-field="slug"]') as HTMLElement;
    expect(await within(field).findByText("Already taken by another record; choose another", undefined, { timeout: 2000 })).toBeInTheDocument();
    const lookups = sent.filter((s) => s.url.startsWith("/api/blog/articles?"));
    // One lookup for the paused value (not one per keystroke), with this record left out.
    expect(lookups).toHaveLength(1);
    const query = new URL(lookups[0]!.url, "http://x").searchParams;
    expect(JSON.parse(query.get("filters")!)).toEqual({ and: [{ column: "slug", method: "eq", value: "forest" }, { column: "id", method: "ne", value: ID }] });
    expect(query.get("limit")).toBe("1");
    // A free value clears the message.
    await userEvent.type(slug, "s");
    await waitFor(() => expect(within(field).queryByText("Already taken by another record; choose another")).toBeNull(), { timeout: 2000 });
    await act(async () => {});
  });

  it("puts a server's 422 on the field, in the admin's words", async () => {
    stubFetch((s) =>
      s.method === "POST"
        ? reply(422, { status: 422, code: "invalid_input", error: "slug: must be lower-case letters, digits, '-' or '_'", fields: { slug: ["must be lower-case letters, digits, '-' or '_'"] } })
        : reply(200, { data: [] }),
    );
    renderForm();
    const form = screen.getByRole("form", { name: "New article" });
    await userEvent.type(within(form).getByLabelText("Title (en)"), "Trees");
    await userEvent.click(within(form).getByRole("button", { name: "Create" }));
    const field = form.querySelector('[data-field="slug"]') as HTMLElement;
    expect(await within(field).findByText("Use lower-case Latin letters, digits, - and _")).toBeInTheDocument();
    expect(within(form).getByTestId("form-error")).toHaveTextContent("Slug: Use lower-case Latin letters, digits, - and _");
    // A message inside 'Advanced' opens it.
    expect(within(form).getByTestId("advanced-fields")).toHaveAttribute("open");
  });

  it("makes the slug from the title as it is typed, and saves the first free one", async () => {
    const sent = stubFetch((s) => {
      if (s.method === "POST") return reply(201, { data: { id: ID, ...(s.body as object) } });
      const taken = ["ёлки-и-сосны", "yolki-i-sosny"].some((v) => decodeURIComponent(s.url).includes(`"value":"${v}"`));
      return reply(200, { data: taken ? [{ id: "0191e6a4-0000-7000-8000-000000000002" }] : [] });
    });
    renderForm();
    const form = screen.getByRole("form", { name: "New article" });
    const title = form.querySelector('[data-field="title"]') as HTMLElement;
    await userEvent.click(within(title).getByRole("tab", { name: "ru" }));
    await userEvent.type(within(form).getByLabelText("Title (ru)"), "Ёлки и сосны");
    expect(within(form).getByLabelText("Slug")).toHaveValue("yolki-i-sosny");
    await userEvent.click(within(form).getByRole("button", { name: "Create" }));
    await waitFor(() => expect(sent.filter((s) => s.method === "POST")).toHaveLength(1));
    const body = sent.find((s) => s.method === "POST")!.body as Record<string, unknown>;
    expect(body.slug).toBe("yolki-i-sosny-2");
    // The admin name is the title as the admin reads it (English first, else another language).
    expect(body.adminTitle).toBe("Ёлки и сосны");
  });

  it("keeps a slug the server found taken (409) refused, in the admin's words", async () => {
    const sent = stubFetch((s) =>
      s.method === "POST" ? reply(409, { status: 409, code: "conflict", error: "slug: already taken", fields: { slug: ["already taken"] } }) : reply(200, { data: [] }),
    );
    renderForm();
    const form = screen.getByRole("form", { name: "New article" });
    await userEvent.type(within(form).getByLabelText("Title (en)"), "Trees");
    // Typed by hand, the slug is the editor's (not replaced by a free one).
    await userEvent.click(within(form).getByText("Advanced"));
    await userEvent.clear(within(form).getByLabelText("Slug"));
    await userEvent.type(within(form).getByLabelText("Slug"), "trees");
    await userEvent.click(within(form).getByRole("button", { name: "Create" }));
    const field = form.querySelector('[data-field="slug"]') as HTMLElement;
    expect(await within(field).findByText("Already taken by another record; choose another")).toBeInTheDocument();
    // Saving again does not send it again: the form now knows.
    await userEvent.click(within(form).getByRole("button", { name: "Failed" }));
    await waitFor(() => expect(within(form).getByRole("button", { name: "Failed" })).toBeInTheDocument());
    expect(within(field).getByText("Already taken by another record; choose another")).toBeInTheDocument();
    expect(sent.filter((s) => s.method === "POST")).toHaveLength(1);
  });
});
