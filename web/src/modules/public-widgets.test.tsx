import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter } from "react-router";
import i18n from "@/i18n";
import { queryClientOptions } from "@/query";
import type { Rec } from "@/site/content";
import { RichText } from "@/site/rich-text";
import { reply, stubFetch } from "@/test-fetch";
import { registry } from ".";
import { variants as analytic } from "./analytic/variants";
import { currencyLabel, variants as billing } from "./billing/variants";
import { ArticleCard } from "./blog/parts";
import { variants as notification } from "./notification/variants";
import { memberCard, SubjectList, SubjectOverview } from "./rbac/members";
import { hasLanding, variants as startup } from "./startup/variants";

const widget = (module: string, extra: Partial<Rec> = {}): Rec => ({ id: "w1", _entity: `${module}.widget`, variant: "default", ...extra });

function shown(children: ReactNode) {
  return render(
    <QueryClientProvider client={new QueryClient(queryClientOptions)}>
      <MemoryRouter>{children}</MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await i18n.changeLanguage("en");
});

describe("every module that declares widgets", () => {
  it("is in the public registry", () => {
    for (const m of ["billing", "notification", "analytic", "startup", "rbac", "blog"]) expect(registry[m], m).toBeDefined();
  });
});

describe("billing's widget", () => {
  it("lists the enabled ways to pay, with the currencies each takes", async () => {
    stubFetch(({ url }) =>
      url.startsWith("/api/billing/providers")
        ? reply(200, { data: [{ provider: "cloudpayments", currencies: ["rub"], statusApi: true }, { provider: "dummy", currencies: [], statusApi: false }] })
        : reply(200, { data: [{ id: "c1", slug: "rub", symbol: "₽", title: "Российский рубль", adminTitle: "RUB", isDefault: true }] }),
    );
    const Widget = billing.default;
    shown(<Widget data={widget("billing")} lang="en" url="/" />);
    const list = await screen.findByTestId("payment-methods");
    expect(screen.getByRole("heading", { level: 2, name: "Ways to pay" })).toBeInTheDocument();
    const items = within(list).getAllByRole("listitem");
    expect(items[0]).toHaveTextContent("CloudPayments");
    expect(await within(items[0]!).findByText("₽ RUB")).toBeInTheDocument();
    expect(items[1]).toHaveTextContent("Test payment");
    expect(items[1]).toHaveTextContent("Any currency");
  });

  it("writes a currency by its sign and code", () => {
    expect(currencyLabel("kzt", [{ slug: "kzt", symbol: "₸" }])).toBe("₸ KZT");
    expect(currencyLabel("usd", [])).toBe("USD");
  });
});

describe("analytic's widget", () => {
  it("shows the public counters in the page's language", async () => {
    await i18n.changeLanguage("ru");
    stubFetch(({ url }) => (url.startsWith("/api/ecommerce/orders/paid-orders-to-products-quantity") ? reply(200, { data: 1204 }) : reply(200, { data: [] }, { "X-Total-Count": "3" })));
    const Widget = analytic.default;
    shown(<Widget data={widget("analytic")} lang="ru" url="/" />);
    expect(await screen.findByText("статьи в блоге")).toBeInTheDocument();
    expect(screen.getByTestId("counter-articles")).toHaveTextContent("3");
    expect(await screen.findByText("дерева оплачено на сайте")).toBeInTheDocument();
    expect(screen.getByTestId("counter-trees")).toHaveTextContent("1 204");
  });
});

describe("notification's widget", () => {
  it("says subscriptions are not open and offers a form that cannot be sent yet", () => {
    const Widget = notification.default;
    shown(<Widget data={widget("notification")} lang="en" url="/" />);
    expect(screen.getByRole("heading", { name: "Project news by email" })).toBeInTheDocument();
    expect(screen.getByLabelText("Email")).toBeDisabled();
    expect(screen.getByRole("button", { name: "Subscribe" })).toBeDisabled();
    expect(screen.getByText(/coming soon/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Read the blog" })).toHaveAttribute("href", "/en/blog");
  });
});

describe("startup's widget", () => {
  it("is a landing block of the record's words, and nothing without any", () => {
    expect(hasLanding(widget("startup"), "en")).toBe(false);
    expect(hasLanding(widget("startup", { description: { en: { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: "Hi" }] }] } } }), "en")).toBe(true);
    const Widget = startup.default;
    const { container, unmount } = shown(<Widget data={widget("startup")} lang="en" url="/" />);
    expect(container).toBeEmptyDOMElement();
    unmount();
    shown(<Widget data={widget("startup", { title: { en: "A million trees" }, subtitle: { en: "Together" } })} lang="en" url="/" />);
    expect(screen.getByRole("heading", { level: 2, name: "A million trees" })).toBeInTheDocument();
    expect(screen.getByText("Together")).toBeInTheDocument();
  });
});

describe("rbac's subject list and overview", () => {
  it("show members by their public profile's name, never an id, an email or an assistant", async () => {
    stubFetch(() =>
      reply(200, {
        data: [
          { id: "0199-aaaa", slug: "anna", title: { en: "Anna" }, adminTitle: "brave-otter", variant: "default" },
          { id: "0199-bbbb", slug: "helper", title: { en: "Helper" }, adminTitle: "bot", variant: "artificial-intelligence" },
        ],
      }),
    );
    shown(<SubjectList data={widget("rbac", { variant: "subject-list-default", title: { en: "Members" } })} lang="en" url="/rbac/subjects" />);
    const list = await screen.findByTestId("members");
    expect(within(list).getAllByRole("listitem")).toHaveLength(1);
    expect(within(list).getByRole("link", { name: "View profile: Anna" })).toHaveAttribute("href", "/en/social/profiles/anna");
    expect(list).not.toHaveTextContent("0199");
    expect(list).not.toHaveTextContent("Helper");
  });

  it("makes no card of a nameless profile", () => {
    expect(memberCard({ title: {}, adminTitle: "", slug: "x", variant: "default" }, "en")).toBeNull();
    expect(memberCard({ title: { ru: "Вера" }, adminTitle: "a", slug: "vera", variant: "default" }, "en")).toMatchObject({ name: "Вера", initial: "В" });
  });

  it("say on an account's page that accounts are private, and lead to the members", () => {
    shown(<SubjectOverview data={widget("rbac", { variant: "subject-overview-default", _record: null })} lang="en" url="/rbac/subjects/x" />);
    expect(screen.getByRole("heading", { name: "Member accounts are private" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "All members" })).toHaveAttribute("href", "/en/rbac/subjects");
  });
});

describe("an article card", () => {
  const base = { id: "a1", _entity: "blog.article", slug: "first", title: { en: "First" }, createdAt: "2026-11-02T10:00:00Z", description: { en: "Some words here." } } as Rec;

  it("has its cover on top, or is compact with no picture box", () => {
    const file = { id: "f", _entity: "file-storage.file", file: "demo/a.svg", mimeType: "image/svg+xml" };
    const { unmount } = shown(<ArticleCard article={{ ...base, _rel: { "articles-to-file-storage-module-files": [{ id: "l", _entity: "x", _to: file }] } } as Rec} lang="en" />);
    expect(screen.getByTestId("article-card")).toHaveAttribute("data-layout", "cover");
    expect(screen.getByTestId("article-card").querySelector("img")).not.toBeNull();
    unmount();
    shown(<ArticleCard article={base} lang="en" />);
    const card = screen.getByTestId("article-card");
    expect(card).toHaveAttribute("data-layout", "compact");
    expect(card.querySelector("img")).toBeNull();
    expect(within(card).getByRole("link", { name: "First" })).toHaveAttribute("href", "/en/blog/articles/first");
    expect(card.querySelector("time")).toHaveAttribute("dateTime", "2026-11-02T10:00:00Z");
    expect(card).toHaveTextContent("2 November 2026");
    expect(card).toHaveTextContent("1 min read");
  });
});

describe("rich text", () => {
  it("styles headings apart from the text, and shows only safe images", () => {
    const doc = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 2 }, content: [{ type: "text", text: "Section" }] },
        { type: "paragraph", content: [{ type: "text", text: "Body" }] },
        { type: "image", attrs: { src: "/files/demo/a.svg", alt: "A tree", title: "Planted in May" } },
        { type: "image", attrs: { src: "javascript:alert(1)", alt: "bad" } },
        { type: "youtube", attrs: { src: "https://www.youtube-nocookie.com/embed/x" } },
      ],
    };
    const { container } = render(<RichText value={doc} />);
    expect(screen.getByRole("heading", { level: 2, name: "Section" }).className).toContain("text-[1.5em]");
    expect(screen.getByRole("heading", { level: 2 }).className).toContain("font-bold");
    expect(screen.getByText("Body").className).not.toContain("font-bold");
    expect(screen.getByRole("img", { name: "A tree" })).toHaveAttribute("src", "/files/demo/a.svg");
    expect(screen.getByText("Planted in May").tagName).toBe("FIGCAPTION");
    expect(screen.queryByRole("img", { name: "bad" })).toBeNull();
    expect(container.querySelector("iframe")).toBeNull();
    expect(screen.getByRole("link", { name: /Watch the video/ })).toHaveAttribute("href", "https://www.youtube-nocookie.com/embed/x");
  });

  it("makes paragraphs of a plain text's blank lines", () => {
    const { container } = render(<RichText value={"One.\n\nTwo."} />);
    expect(container.querySelectorAll("p")).toHaveLength(2);
  });
});
