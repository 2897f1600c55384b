import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { mount } from "@/test-session";
import type { Rec } from "@/site/content";
import { reply, stubFetch } from "@/test-fetch";
import { linksTo, quantityIn, requestedQuantity, TreeDonation } from "./donation";

const cur = (slug: string, symbol: string, isDefault = false) => ({ id: `c-${slug}`, slug, symbol, title: slug, isDefault });
const tree: Rec = {
  id: "p-tree",
  _entity: "ecommerce.product",
  title: { en: "A tree", ru: "Дерево" },
  _prices: [
    { amount: "199", currency: cur("rub", "₽", true) },
    { amount: "995", currency: cur("kzt", "₸") },
  ],
};
const providers = [
  { provider: "dummy", currencies: [], statusApi: false },
  { provider: "cloudpayments", currencies: ["rub"], statusApi: true },
  { provider: "stripe", currencies: [], statusApi: true },
];

/** A link as the site's router makes it: it navigates by itself (the browser does not). */
const stay = (e: { preventDefault(): void }) => e.preventDefault();

/** The home page's shape: tier cards linking to the intro block just above the donation. */
function Page() {
  return (
    <main>
      <section id="tiers">
        <div>
          <h3>10 trees</h3>
          <p>1,990 ₽</p>
          <a href="/en/#donate" onClick={stay}>
            Choose
          </a>
        </div>
        <div>
          <h3>100 trees</h3>
          <a href="/en/?trees=100#donate" onClick={stay}>
            Choose
          </a>
        </div>
        <a href="/en/#faq" onClick={stay}>
          Questions
        </a>
      </section>
      <section id="donate">
        <h2>Plant a tree now</h2>
      </section>
      <section id="donation">
        <TreeDonation product={tree} lang="en" />
      </section>
    </main>
  );
}

function serve(answers: { providers?: unknown; checkout?: () => Response } = {}) {
  return stubFetch((s) => {
    if (s.url.startsWith("/api/billing/providers")) return reply(200, { data: answers.providers ?? providers });
    if (s.url.endsWith("/checkout")) return answers.checkout?.() ?? reply(201, { data: { billingModule: { invoices: [] }, ecommerceModule: { orders: [] } } });
    return reply(404, { code: "not_found", error: "no" });
  });
}

describe("the number of trees a link asks for", () => {
  it("reads `?trees=N`, else the heading of the card the link is in", () => {
    document.body.innerHTML = `<section><div><h3>10 деревьев</h3><a id="a" href="/#donate">Выбрать</a></div><div><h3>1 000 trees</h3><a id="b" href="/?trees=100#donate">Choose</a></div></section><section><a id="c" href="/#donate">Donate</a></section><header><div><a id="d" href="/#donate">Plant a tree</a></div></header><main><h2>5 trees</h2><div><a id="e" href="/#donate">Plant</a></div></main>`;
    const link = (id: string) => document.getElementById(id) as HTMLAnchorElement;
    expect(requestedQuantity(link("a"), "http://x/ru/")).toBe(10);
    expect(requestedQuantity(link("b"), "http://x/ru/")).toBe(100);
    expect(requestedQuantity(link("c"), "http://x/ru/")).toBeNull();
    expect(requestedQuantity(link("d"), "http://x/ru/")).toBeNull();
    expect(requestedQuantity(link("e"), "http://x/ru/")).toBeNull();
  });

  it("takes whole numbers from 1 to 10 000 only", () => {
    expect(quantityIn("10 деревьев")).toBe(10);
    expect(quantityIn("1,000 trees")).toBe(1000);
    expect(quantityIn("1\u00a0000 деревьев")).toBe(1000);
    expect(quantityIn("A grove")).toBeNull();
    expect(quantityIn("0")).toBeNull();
    expect(quantityIn("99999")).toBeNull();
  });

  it("counts links to the donation's own block or the one just before it, on this page", () => {
    document.body.innerHTML = `<section id="donate"></section><section id="donation"></section><a id="a" href="/en/#donate">x</a><a id="b" href="/en/#faq">x</a><a id="c" href="/en/blog#donate">x</a><a id="d" href="#donation">x</a>`;
    const section = document.getElementById("donation") as HTMLElement;
    const here = new URL("http://localhost/en/") as unknown as Location;
    const link = (id: string) => document.getElementById(id) as HTMLAnchorElement;
    expect(linksTo(link("a"), section, here)).toBe(true);
    expect(linksTo(link("b"), section, here)).toBe(false);
    expect(linksTo(link("c"), section, here)).toBe(false);
    expect(linksTo(link("d"), section, here)).toBe(true);
  });
});

describe("the tree donation", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("a tier's Choose presets the quantity, highlights the matching quick amount on both sizes and moves the focus to the quantity", async () => {
    serve();
    mount(<Page />, { me: null, url: "/en/" });
    const form = await screen.findByTestId("tree-donation");
    await within(form).findByText("Russian bank");
    const quantity = within(form).getByTestId("quantity");
    expect(quantity).toHaveValue(1);
    // Both the desktop and the phone rows have 1 highlighted at first.
    expect(within(within(form).getByTestId("amounts-mobile")).getByRole("button", { name: "1" })).toHaveAttribute("aria-pressed", "true");
    window.HTMLElement.prototype.scrollIntoView = vi.fn();
    fireEvent.click(screen.getAllByRole("link", { name: "Choose" })[0] as HTMLElement);
    await waitFor(() => expect(quantity).toHaveValue(10));
    for (const row of ["amounts-desktop", "amounts-mobile"]) {
      expect(within(within(form).getByTestId(row)).getByRole("button", { name: "10" })).toHaveAttribute("aria-pressed", "true");
      expect(within(within(form).getByTestId(row)).getByRole("button", { name: "1" })).toHaveAttribute("aria-pressed", "false");
    }
    expect(within(form).getByTestId("total")).toHaveTextContent("1,990 ₽");
    await waitFor(() => expect(quantity).toHaveFocus());
    fireEvent.click(screen.getAllByRole("link", { name: "Choose" })[1] as HTMLElement);
    await waitFor(() => expect(quantity).toHaveValue(100));
    // A link elsewhere on the page changes nothing.
    fireEvent.click(screen.getByRole("link", { name: "Questions" }));
    await act(() => new Promise((r) => setTimeout(r, 100)));
    expect(quantity).toHaveValue(100);
  });

  it("offers a Kazakh card (tenge, TipTopPay) only where TipTopPay is enabled, and pays with it", async () => {
    const sent = serve({ providers: [...providers, { provider: "tiptoppay", currencies: ["kzt"], statusApi: true }] });
    mount(<TreeDonation product={tree} lang="en" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    const kz = await screen.findByRole("radio", { name: "Kazakh bank" });
    expect(kz).toHaveAccessibleDescription("In tenge (₸) · TipTopPay");
    await userEvent.click(kz);
    expect(screen.getByTestId("total")).toHaveTextContent("995 ₸");
    expect(screen.getByTestId("pay-with")).toHaveTextContent("995 ₸ per tree, paid through TipTopPay");
    await userEvent.type(screen.getByLabelText("Email for the receipt"), "donor@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Pay" }));
    await waitFor(() => expect(sent.some((s) => s.url.endsWith("/checkout"))).toBe(true));
    expect(sent.find((s) => s.url.endsWith("/checkout"))?.body).toMatchObject({ provider: "tiptoppay", quantity: 1, email: "donor@example.com", billingModule: { currency: { id: "c-kzt" } } });
  });

  it("asks for the email a real provider mails the receipt to, and not for the demo's dummy one", async () => {
    const sent = serve();
    mount(<TreeDonation product={tree} lang="en" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    const email = await screen.findByLabelText("Email for the receipt");
    await waitFor(() => expect(email).toHaveAttribute("aria-required", "true"));
    expect(email).toHaveAccessibleDescription("The receipt is sent here.");
    await userEvent.click(screen.getByRole("button", { name: "Pay" }));
    await waitFor(() => expect(email).toHaveAccessibleDescription("Enter an email to receive the invoice."));
    expect(email).toHaveFocus();
    expect(sent.some((s) => s.url.endsWith("/checkout"))).toBe(false);
    vi.unstubAllGlobals();
    cleanup();
    const dummy = serve({ providers: [{ provider: "dummy", currencies: [], statusApi: false }] });
    mount(<TreeDonation product={tree} lang="en" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    await screen.findByText("In roubles (₽) · Test payment");
    expect(screen.getByLabelText("Email for the receipt")).toHaveAccessibleDescription("Optional: the receipt is sent here.");
    await userEvent.click(screen.getByRole("button", { name: "Pay" }));
    await waitFor(() => expect(dummy.some((s) => s.url.endsWith("/checkout"))).toBe(true));
  });

  it("has no Kazakh card without TipTopPay", async () => {
    serve();
    mount(<TreeDonation product={tree} lang="en" />, { me: null, url: "/en/" });
    await screen.findByRole("radio", { name: "Foreign bank" });
    expect(screen.queryByRole("radio", { name: "Kazakh bank" })).toBeNull();
  });

  it("marks a bad receipt email on the field as it is left, and does not pay", async () => {
    const sent = serve();
    mount(<TreeDonation product={tree} lang="en" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    const email = await screen.findByLabelText("Email for the receipt");
    await userEvent.type(email, "donor@");
    await userEvent.tab();
    expect(email).toHaveAttribute("aria-invalid", "true");
    expect(email).toHaveAccessibleDescription("Enter a valid email, like name@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Pay" }));
    expect(sent.some((s) => s.url.endsWith("/checkout"))).toBe(false);
    await waitFor(() => expect(email).toHaveFocus());
    await userEvent.type(email, "example.com");
    expect(email).not.toHaveAttribute("aria-invalid");
  });

  it("puts the server's word on the email on the field", async () => {
    serve({ checkout: () => reply(422, { code: "invalid_input", error: "invalid input", fields: { email: ["must be an email address"] } }) });
    mount(<TreeDonation product={tree} lang="en" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    const email = await screen.findByLabelText("Email for the receipt");
    await userEvent.type(email, "donor@example.com");
    await waitFor(() => expect(screen.getByRole("button", { name: "Pay" })).toBeEnabled());
    await userEvent.click(screen.getByRole("button", { name: "Pay" }));
    await waitFor(() => expect(email).toHaveAttribute("aria-invalid", "true"));
    expect(screen.getByTestId("donation-email-error")).toHaveTextContent("Enter a valid email, like name@example.com");
  });
});
