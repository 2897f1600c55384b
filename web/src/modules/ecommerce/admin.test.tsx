import { describe, expect, it } from "vitest";
import { lastDays, ORDER_STATUSES } from "./admin";

describe("sales chart days", () => {
  it("lists the last n UTC days, oldest first, ending today", () => {
    const now = Date.UTC(2026, 2, 1, 0, 30); // 1 March, just after midnight UTC
    expect(lastDays(3, now)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
    expect(lastDays(30, now)).toHaveLength(30);
    expect(new Set(lastDays(30, now)).size).toBe(30);
  });
});

describe("order statuses", () => {
  it("follow the lifecycle and have a title in both languages", async () => {
    const { en } = await import("@/i18n/en");
    const { ru } = await import("@/i18n/ru");
    expect(ORDER_STATUSES[0]).toBe("new");
    for (const s of ORDER_STATUSES) {
      expect(en.commerce.status[s]).toBeTruthy();
      expect(ru.commerce.status[s]).toBeTruthy();
      expect(ru.commerce.status[s]).not.toBe(en.commerce.status[s]);
    }
  });
});

describe("the orders screen", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads a number as that order and anything else as a search of the addresses", async () => {
    const { orderSearch } = await import("./admin");
    expect(orderSearch("1042")).toEqual({ conditions: [{ column: "number", method: "eq", value: "1042" }] });
    expect(orderSearch(" № 1042 ")).toEqual({ conditions: [{ column: "number", method: "eq", value: "1042" }] });
    expect(orderSearch("#7")).toEqual({ conditions: [{ column: "number", method: "eq", value: "7" }] });
    expect(orderSearch("buyer@example")).toEqual({ search: "buyer@example" });
  });

  it("lists number, date, customer, total, status and payment in words, and searches by number", async () => {
    const { QueryClient, QueryClientProvider } = await import("@tanstack/react-query");
    const { render, screen, within } = await import("@testing-library/react");
    const userEvent = (await import("@testing-library/user-event")).default;
    const { MemoryRouter } = await import("react-router");
    const { reply, stubFetch } = await import("@/test-fetch");
    const { entityMeta, field } = await import("@/test-meta");
    const { OrdersView } = await import("./admin");
    const rub = { id: "c1", slug: "rub", symbol: "₽", title: "Рубль", isDefault: true };
    const invoice = entityMeta("billing", "invoice", "invoices", [field("status", "enum", { values: ["open", "paid"], valueLabels: { paid: { en: "Paid", ru: "Оплачен" }, open: { en: "Open", ru: "Ожидает оплаты" } } })]);
    const order = { id: "o1", number: 1042, status: "approving", email: null, createdAt: "2026-11-29T10:00:00Z" };
    const sent = stubFetch((s) => {
      if (s.url.startsWith("/api/meta")) return reply(200, { data: { languages: ["en", "ru"], modules: ["billing"], moduleLabels: {}, entities: [invoice] } });
      if (s.url.startsWith("/api/ecommerce/orders/summaries"))
        return reply(200, { data: [{ id: "o1", checkoutTotal: "398", billingModuleCurrency: rub, total: [], provider: "cloudpayments", paymentStatus: "paid", subjectId: "s1", email: "buyer@example.com" }] });
      return reply(200, { data: [order] });
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter>
          <OrdersView lang="ru" />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const table = await screen.findByTestId("orders-table");
    const customer = await within(table).findByRole("link", { name: "buyer@example.com" });
    expect(customer).toHaveAttribute("href", "/admin/rbac/subject?edit=s1");
    const row = customer.closest("tr")!;
    expect(row).toHaveTextContent("№ 1042");
    expect(row).toHaveTextContent(/398\s?₽/);
    expect(row).toHaveTextContent("CloudPayments · Оплачен");
    expect(row).not.toHaveTextContent("paid");
    const summaries = sent.filter((s) => s.url.startsWith("/api/ecommerce/orders/summaries"));
    expect(summaries).toHaveLength(1);
    expect(new URL(summaries[0]!.url, "http://x").searchParams.get("ids")).toBe("o1");
    await userEvent.type(screen.getByRole("searchbox", { name: "Find by number or email" }), "1042");
    await vi.waitFor(() => expect(sent.some((s) => s.url.startsWith("/api/ecommerce/orders?") && decodeURIComponent(s.url).includes('{"column":"number","method":"eq","value":"1042"}'))).toBe(true));
  });
});
