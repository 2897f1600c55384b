import { screen } from "@testing-library/react";
import { mount } from "@/test-session";
import { reply, stubFetch } from "@/test-fetch";
import { variants } from "./variants";

const OrderList = variants["order-list-default"];
const data = { id: "w1", _entity: "ecommerce.widget", variant: "order-list-default", title: { en: "Your orders", ru: "Ваши заказы" } };
const rub = { id: "c-rub", slug: "rub", symbol: "₽", title: "Rouble", isDefault: true };

afterEach(() => vi.unstubAllGlobals());

describe("the order-list widget", () => {
  it("asks a visitor without a session to sign in", async () => {
    mount(<OrderList data={data} lang="en" url="/" />, { me: null, url: "/en/" });
    expect(await screen.findByRole("heading", { name: "Your orders" })).toBeInTheDocument();
    expect(screen.getByText("Sign in to see your orders.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in" })).toBeInTheDocument();
  });

  it("lists the visitor's placed orders by number", async () => {
    stubFetch((s) =>
      s.url.includes("/orders?type=history")
        ? reply(200, { data: [{ id: "01a22472-5525-7617-ba15-e3b4d4091ecf", number: 1042, createdAt: "2026-03-12T11:05:00Z", status: "approving", type: "history", billingModuleCurrency: rub, checkoutTotal: "199", total: [], ordersToProducts: [] }] })
        : reply(404, { code: "not_found", error: "no" }),
    );
    mount(<OrderList data={data} lang="en" url="/" />, { me: { id: "s1", admin: false, roles: [], identities: [] }, url: "/en/" });
    expect(await screen.findByRole("link", { name: "Order № 1042" })).toHaveAttribute("href", "/en/ecommerce/orders/01a22472-5525-7617-ba15-e3b4d4091ecf");
    expect(screen.getByTestId("order-status")).toHaveTextContent("Paid");
  });
});
