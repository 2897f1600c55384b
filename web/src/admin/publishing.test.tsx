import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { EntityMeta } from "@/api/meta";
import { reply, stubFetch } from "@/test-fetch";
import { entityMeta, field as f, publishingFields } from "@/test-meta";
import { DraftControls, RecordDirtyProvider, useReportDirty } from "./publishing";

const entity = (module: string, name: string, route: string, extra: ReturnType<typeof f>[] = []): EntityMeta =>
  entityMeta(module, name, route, [...extra, ...publishingFields()]);
const page = entity("host", "page", "pages", [f("url", "text")]);
const article = entity("blog", "article", "articles", [f("slug", "text")]);

function Dirty({ dirty }: { dirty: boolean }) {
  useReportDirty(dirty);
  return null;
}

function mount(e: EntityMeta, id: string, dirty = false) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RecordDirtyProvider>
        <DraftControls entity={e} id={id} lang="en" />
        <Dirty dirty={dirty} />
      </RecordDirtyProvider>
    </QueryClientProvider>,
  );
  return screen.findByTestId("draft-controls");
}

describe("a record's draft controls", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("publishes a page, and when its widgets are drafts says which and publishes them with it", async () => {
    let status = "draft";
    const sent = stubFetch((s) => {
      if (s.url === "/api/host/pages/p1" && s.method === "GET") return reply(200, { data: { id: "p1", url: "/about", status } });
      if (s.url === "/api/host/pages/p1/publish") {
        if (!(s.body as { withWidgets?: boolean }).withWidgets) return reply(409, { status: 409, code: "conflict", error: "these widgets of the page are not published yet: Hero, Footer; publish them with the page (withWidgets) or first", fields: { widgets: ["Hero", "Footer"] } });
        status = "published";
        return reply(200, { data: { page: { id: "p1", url: "/about", status }, widgets: [] } });
      }
      return reply(200, { data: [] });
    });
    const box = await mount(page, "p1");
    expect(within(box).getByTestId("status-badge")).toHaveTextContent("Draft");
    expect(within(box).getByTestId("preview-link")).toHaveAttribute("href", "/en/about?preview=1");
    await userEvent.click(within(box).getByRole("button", { name: "Publish" }));
    expect(await within(box).findByText("This page shows widgets that are not published: Hero, Footer")).toBeInTheDocument();
    await userEvent.click(within(box).getByRole("button", { name: "Publish with widgets" }));
    await vi.waitFor(() => expect(within(box).getByTestId("status-badge")).toHaveTextContent("Published"));
    expect(sent.filter((s) => s.url.endsWith("/publish")).map((s) => s.body)).toEqual([{ withWidgets: false }, { withWidgets: true }]);
  });

  it("schedules a page through its publish route, and when its widgets are drafts schedules them with it for the same moment", async () => {
    let status = "draft";
    let publishAt: string | null = null;
    const sent = stubFetch((s) => {
      if (s.url === "/api/host/pages/p1" && s.method === "GET") return reply(200, { data: { id: "p1", url: "/about", status, publishAt } });
      if (s.url === "/api/host/pages/p1/publish") {
        const b = s.body as { withWidgets?: boolean; publishAt?: string };
        if (!b.withWidgets) return reply(409, { status: 409, code: "conflict", error: "not published yet: Hero", fields: { widgets: ["Hero"] } });
        status = "scheduled";
        publishAt = b.publishAt ?? null;
        return reply(200, { data: { page: { id: "p1", url: "/about", status, publishAt }, widgets: [] } });
      }
      return reply(200, { data: [] });
    });
    const box = await mount(page, "p1");
    await userEvent.click(within(box).getByRole("button", { name: "Schedule…" }));
    const dialog = await screen.findByRole("dialog");
    await userEvent.type(within(dialog).getByLabelText("Publish at"), "2099-06-01T10:30");
    await userEvent.click(within(dialog).getByRole("button", { name: "Schedule" }));
    expect(await within(box).findByText("This page shows widgets that are not published: Hero")).toBeInTheDocument();
    await userEvent.click(within(box).getByRole("button", { name: /^Schedule with widgets for / }));
    await vi.waitFor(() => expect(within(box).getByTestId("status-badge")).toHaveTextContent("Scheduled"));
    const bodies = sent.filter((s) => s.url.endsWith("/publish")).map((s) => s.body as { withWidgets: boolean; publishAt: string });
    expect(bodies.map((b) => b.withWidgets)).toEqual([false, true]);
    expect(bodies[0]!.publishAt).toBe(new Date("2099-06-01T10:30").toISOString());
    expect(bodies[1]!.publishAt).toBe(bodies[0]!.publishAt);
    // Nothing went through the generic update: the page's widgets go with it.
    expect(sent.some((s) => s.method === "PATCH")).toBe(false);
  });

  it("disables Preview, saying why, when no page template shows the entity, and holds Publish back over unsaved edits", async () => {
    const sent = stubFetch((s) => {
      if (s.url === "/api/blog/articles/a1") return reply(200, { data: { id: "a1", slug: "spring", status: "draft" } });
      if (s.url.startsWith("/api/host/pages?")) return reply(200, { data: [{ id: "p", url: "/blog/[blog.categories.slug]/[blog.articles.slug]" }] });
      return reply(404, { status: 404, code: "not_found", error: "no" });
    });
    const box = await mount(article, "a1", true);
    const disabled = await within(box).findByTestId("preview-disabled");
    expect(disabled).toHaveAttribute("title", "No public page shows this record: add a page whose URL has [blog.articles.slug]");
    expect(within(disabled).getByRole("button", { name: "Preview" })).toBeDisabled();
    expect(within(box).getByRole("button", { name: "Publish" })).toBeDisabled();
    expect(within(box).getByText("Save your changes first")).toBeInTheDocument();
    const lookup = sent.find((s) => s.url.startsWith("/api/host/pages?"))!;
    expect(decodeURIComponent(lookup.url)).toContain('"method":"like","value":"%[blog.articles.slug]%"');
  });
});
