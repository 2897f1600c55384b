import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { reply, stubFetch } from "@/test-fetch";
import { isPreview, usePageBundle } from "./page";

function Title({ url }: { url: string }) {
  const q = usePageBundle(url);
  return <p>{q.data ? String((q.data.page as { title?: string }).title) : q.isPending ? "…" : "none"}</p>;
}

function mount(location: string) {
  return render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[location]}>
        <Title url="/blog/articles/draft" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("the site's preview of drafts", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads ?preview from the location", () => {
    expect(isPreview("?preview=1")).toBe(true);
    expect(isPreview("?preview")).toBe(true);
    expect(isPreview("?a=1&preview=true")).toBe(true);
    expect(isPreview("?preview=false")).toBe(false);
    expect(isPreview("?preview=0")).toBe(false);
    expect(isPreview("")).toBe(false);
  });

  it("asks the bundle route for drafts when the location has ?preview, and not otherwise", async () => {
    const sent = stubFetch((s) => reply(200, { data: { page: { title: s.url.includes("preview=true") ? "Draft" : "Published" }, layouts: [], widgets: [], url: "/blog/articles/draft" } }));
    mount("/ru/blog/articles/draft?preview=1");
    await screen.findByText("Draft");
    expect(sent.map((s) => s.url)).toEqual(["/api/host/pages/bundle?url=%2Fblog%2Farticles%2Fdraft&preview=true"]);
  });

  it("asks for the published page without ?preview", async () => {
    const sent = stubFetch(() => reply(200, { data: { page: { title: "Published" }, layouts: [], widgets: [], url: "/blog/articles/draft" } }));
    mount("/ru/blog/articles/draft");
    await screen.findByText("Published");
    expect(sent.map((s) => s.url)).toEqual(["/api/host/pages/bundle?url=%2Fblog%2Farticles%2Fdraft"]);
  });
});
