import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { mount } from "@/test-session";
import type { Subject } from "@/lib/session";
import { reply, stubFetch } from "@/test-fetch";
import type { Order } from "./api";
import { CartButton, CheckoutReturnScreen, MyOrdersScreen } from "./cart";
import { OrderScreen } from "./order-page";

const ID = "01a22472-5525-7617-ba15-e3b4d4091ecf";
const rub = { id: "c-rub", slug: "rub", symbol: "₽", title: "Rouble", isDefault: true };
const guest: Subject = { id: "s1", admin: false, roles: [], identities: [] };

function order(over: Partial<Order> = {}): Order {
  return {
    id: ID,
    createdAt: "2026-03-12T11:05:00Z",
    updatedAt: "2026-03-12T11:05:00Z",
    status: "new",
    type: "cart",
    variant: "default",
    comment: null,
    email: null,
    language: "en",
    receipt: "",
    billingModuleCurrency: rub,
    checkoutTotal: "398",
    total: [{ billingModuleCurrency: rub, total: "398" }],
    ordersToProducts: [
      {
        id: "l1",
        orderId: ID,
        productId: "p1",
        quantity: 2,
        createdAt: "2026-03-12T11:05:00Z",
        updatedAt: "2026-03-12T11:05:00Z",
        variant: "default",
        product: { id: "p1", slug: "tree", title: { en: "A tree", ru: "Дерево" } },
        total: [{ billingModuleCurrency: rub, total: "398" }],
      },
    ],
    ...over,
  } as Order;
}

afterEach(() => vi.unstubAllGlobals());

describe("the cart sheet", () => {
  it("is titled 'Cart', shows no order id, and closes by its button and by Escape", async () => {
    stubFetch((s) => {
      if (s.url.includes("/orders/total")) return reply(200, { data: [{ billingModuleCurrency: rub, total: "398", orders: [order()] }] });
      if (s.url.startsWith("/api/billing/providers")) return reply(200, { data: [{ provider: "dummy", currencies: [], statusApi: false }] });
      return reply(404, { code: "not_found", error: "no" });
    });
    mount(<CartButton />, { me: guest, url: "/en/" });
    const open = await screen.findByRole("button", { name: /Cart/ });
    await screen.findByTestId("cart-badge");
    await userEvent.click(open);
    const sheet = await screen.findByRole("dialog", { name: "Cart" });
    await within(sheet).findByText("A tree");
    expect(sheet.textContent).not.toContain(ID);
    expect(sheet.textContent).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
    await userEvent.click(within(sheet).getByRole("button", { name: "Close the cart" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await userEvent.click(open);
    await screen.findByRole("dialog", { name: "Cart" });
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });
});

describe("a cart in two currencies", () => {
  it("checks each currency out on its own, with the providers that take it", async () => {
    const kzt = { id: "c-kzt", slug: "kzt", symbol: "₸", title: "Tenge", isDefault: false };
    const tenge = order({ id: "01a22472-5525-7617-ba15-000000000003", billingModuleCurrency: kzt, checkoutTotal: "995", total: [{ billingModuleCurrency: kzt, total: "995" }] });
    const sent = stubFetch((s) => {
      if (s.url.includes("/orders/total"))
        return reply(200, {
          data: [
            { billingModuleCurrency: rub, total: "398", orders: [order()] },
            { billingModuleCurrency: kzt, total: "995", orders: [tenge] },
          ],
        });
      if (s.url.startsWith("/api/billing/providers")) return reply(200, { data: [{ provider: "cloudpayments", currencies: ["rub"], statusApi: true }, { provider: "tiptoppay", currencies: ["kzt"], statusApi: true }] });
      if (s.url.endsWith("/orders/checkout")) return reply(201, { data: { billingModule: { invoices: [] }, ecommerceModule: { orders: [] } } });
      return reply(404, { code: "not_found", error: "no" });
    });
    mount(<CartButton />, { me: guest, url: "/en/" });
    await userEvent.click(await screen.findByRole("button", { name: /Cart/ }));
    const sheet = await screen.findByRole("dialog", { name: "Cart" });
    const groups = await within(sheet).findAllByTestId("cart-group");
    expect(groups).toHaveLength(2);
    const [inRub, inKzt] = groups as [HTMLElement, HTMLElement];
    expect(within(inRub).getByRole("heading", { name: "Paid in ₽" })).toBeInTheDocument();
    await within(inKzt).findByRole("option", { name: "TipTopPay" });
    expect(within(inKzt).queryByRole("option", { name: "CloudPayments" })).toBeNull();
    // A real provider mails the invoice: no email, no checkout.
    await userEvent.click(within(inKzt).getByRole("button", { name: "Checkout" }));
    await waitFor(() => expect(within(inKzt).getByLabelText("Email for the invoice")).toHaveAccessibleDescription("Enter an email to receive the invoice."));
    await userEvent.type(within(inKzt).getByLabelText("Email for the invoice"), "buyer@example.com");
    await userEvent.click(within(inKzt).getByRole("button", { name: "Checkout" }));
    await waitFor(() => expect(sent.some((s) => s.url.endsWith("/orders/checkout"))).toBe(true));
    expect(sent.find((s) => s.url.endsWith("/orders/checkout"))?.body).toMatchObject({ provider: "tiptoppay", email: "buyer@example.com", ecommerceModule: { orders: [{ id: tenge.id }] } });
  });
});

describe("My orders", () => {
  it("lists each order with its number (or a neutral title), its date and status, linking to its page", async () => {
    stubFetch((s) => {
      if (s.url.includes("/orders?type=history")) return reply(200, { data: [order({ status: "approving", type: "history", number: 1042 } as Partial<Order>), order({ id: "01a22472-5525-7617-ba15-000000000002", status: "canceled", type: "history", createdAt: "2026-03-01T08:00:00Z" })] });
      return reply(404, { code: "not_found", error: "no" });
    });
    mount(<MyOrdersScreen />, { me: guest, url: "/en/ecommerce/orders" });
    const list = await screen.findByTestId("orders-list");
    const items = [...list.children] as HTMLElement[];
    expect(items).toHaveLength(2);
    const first = items[0] as HTMLElement;
    expect(within(first).getByRole("link", { name: "Order № 1042" })).toHaveAttribute("href", `/en/ecommerce/orders/${ID}`);
    expect(within(first).getByTestId("order-date")).toHaveTextContent("March 12, 2026");
    expect(within(first).getByTestId("order-status")).toHaveTextContent("Paid");
    expect(within(items[1] as HTMLElement).getByRole("link", { name: "Your order" })).toBeInTheDocument();
    expect(list.textContent).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
  });

  it("asks a visitor without a session to sign in, coming back here", async () => {
    mount(<MyOrdersScreen />, { me: null, url: "/en/ecommerce/orders" });
    const link = await screen.findByRole("link", { name: "Sign in" });
    expect(link).toHaveAttribute("href", `/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent("/en/ecommerce/orders")}`);
  });
});

describe("an order's page", () => {
  const url = `/en/ecommerce/orders/${ID}`;

  it("shows its buyer the lines, the total and the status history with dates", async () => {
    stubFetch((s) =>
      s.url.endsWith(`/orders/${ID}`)
        ? reply(200, {
            data: order({
              status: "approving",
              type: "history",
              email: "donor@example.com",
              statusChanges: [
                { id: "h1", createdAt: "2026-03-12T11:06:00Z", from: "new", to: "paying" },
                { id: "h2", createdAt: "2026-03-12T11:07:00Z", from: "paying", to: "approving" },
              ],
              payments: [{ id: "i1", status: "paid", provider: "cloudpayments", amount: "398", createdAt: "2026-03-12T11:06:00Z", paymentUrl: null }],
              receiptUrl: "/files/receipt-1.png",
            } as Partial<Order>),
          })
        : reply(404, { code: "not_found", error: "no" }),
    );
    mount(<OrderScreen />, { me: guest, url });
    await screen.findByTestId("order-page");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Your order");
    expect(screen.getAllByRole("heading", { level: 1 })).toHaveLength(1);
    expect(screen.getByTestId("order-state")).toHaveTextContent("Paid. Thank you! Updates go to donor@example.com.");
    const lines = screen.getByTestId("order-lines");
    expect(within(lines).getByRole("link", { name: "A tree" })).toHaveAttribute("href", "/en/ecommerce/products/tree");
    expect(within(lines).getByTestId("order-total")).toHaveTextContent("398 ₽");
    const history = within(screen.getByTestId("order-history")).getAllByRole("listitem");
    expect(history.map((li) => li.querySelector("p")?.textContent)).toEqual(["Order placed", "Awaiting payment", "Paid"]);
    expect(history[2]).toHaveTextContent("March 12, 2026");
    const payment = within(screen.getByTestId("order-payments")).getByRole("listitem");
    expect(payment).toHaveTextContent("CloudPayments · 398 ₽");
    expect(payment).toHaveTextContent("Paid · March 12, 2026");
    expect(screen.queryByRole("link", { name: /Go to payment/ })).toBeNull();
    expect(screen.getByRole("link", { name: "Open the receipt" })).toHaveAttribute("href", "/files/receipt-1.png");
    expect(document.body.textContent).not.toContain(ID);
  });

  it("links an open payment's page, so a buyer who left it can pay, and has no receipt yet", async () => {
    stubFetch((s) =>
      s.url.endsWith(`/orders/${ID}`)
        ? reply(200, {
            data: order({
              status: "paying",
              type: "cart",
              statusChanges: [{ id: "h1", createdAt: "2026-03-12T11:06:00Z", from: "new", to: "paying" }],
              payments: [{ id: "i1", status: "open", provider: "tiptoppay", amount: "995", createdAt: "2026-03-12T11:06:00Z", paymentUrl: "https://pay.example/i1" }],
              receiptUrl: null,
            } as Partial<Order>),
          })
        : reply(404, { code: "not_found", error: "no" }),
    );
    mount(<OrderScreen />, { me: guest, url });
    const pay = await screen.findByRole("link", { name: "Go to payment (opens TipTopPay)" });
    expect(pay).toHaveAttribute("href", "https://pay.example/i1");
    expect(screen.getByTestId("order-payment")).toHaveTextContent("Waiting for payment");
    expect(screen.queryByRole("link", { name: "Open the receipt" })).toBeNull();
  });

  it("tells someone whose order it is not, and offers sign-in", async () => {
    stubFetch(() => reply(404, { code: "not_found", error: "no such order" }));
    mount(<OrderScreen />, { me: guest, url });
    await screen.findByText(/This order is not in your account/);
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", `/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent(url)}`);
  });

  it("asks a visitor without a session to sign in", async () => {
    mount(<OrderScreen />, { me: null, url });
    await screen.findByText("Sign in to see this order.");
  });
});

describe("the page after a payment", () => {
  it("follows the order by itself until it is paid, and says so", async () => {
    let asked = 0;
    stubFetch((s) => {
      if (!s.url.endsWith(`/orders/${ID}`)) return reply(404, { code: "not_found", error: "no" });
      asked += 1;
      return reply(200, { data: order({ status: asked < 2 ? "paying" : "approving", type: "history" }) });
    });
    mount(<CheckoutReturnScreen />, { me: guest, url: `/en/ecommerce/checkout/success?orders=${ID}` });
    const note = await screen.findByTestId("payment-note");
    expect(note).toHaveAttribute("data-state", "pending");
    expect(note).toHaveTextContent("We are confirming the payment");
    await waitFor(() => expect(screen.getByTestId("payment-note")).toHaveAttribute("data-state", "paid"), { timeout: 4000 });
    expect(screen.getByTestId("payment-note")).toHaveTextContent("The payment went through: the order is paid.");
    expect(screen.getByTestId("order-status")).toHaveTextContent("Paid");
    const settled = asked;
    await new Promise((r) => setTimeout(r, 1500));
    expect(asked).toBe(settled);
  });

  it("says when the payment failed", async () => {
    stubFetch(() => reply(200, { data: order({ status: "canceled", type: "history" }) }));
    mount(<CheckoutReturnScreen />, { me: guest, url: `/en/ecommerce/checkout/success?orders=${ID}` });
    await screen.findByRole("heading", { name: "The payment did not go through" });
    expect(screen.getByTestId("payment-note")).toHaveAttribute("data-state", "failed");
  });
});
