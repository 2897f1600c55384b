import { isOrderId, orderTitle, paymentState, type Order } from "./api";
import { overallState } from "./cart";
import { shopT } from "./i18n";
import { anyPending, FOLLOW_BACKOFF, followDelay, followInterval } from "./follow";

const order = (status: Order["status"], extra: Partial<Order> = {}) => ({ status, ...extra }) as Order;

describe("where a payment stands", () => {
  it("paying is pending; approving and after are paid; canceled failed; new not started", () => {
    expect(paymentState("paying")).toBe("pending");
    for (const s of ["approving", "packaging", "delivering", "delivered"] as const) expect(paymentState(s)).toBe("paid");
    expect(paymentState("canceled")).toBe("failed");
    expect(paymentState("new")).toBe("open");
  });

  it("several orders: pending while any is, paid when all are, failed when one failed", () => {
    expect(overallState([])).toBeNull();
    expect(overallState([order("approving"), order("paying")])).toBe("pending");
    expect(overallState([order("approving"), order("delivered")])).toBe("paid");
    expect(overallState([order("approving"), order("canceled")])).toBe("failed");
    expect(overallState([order("new")])).toBe("open");
  });
});

describe("following a payment", () => {
  it("asks quickly at first, then slower, the last wait repeating", () => {
    expect(followDelay(0)).toBe(1000);
    expect(followDelay(3)).toBeGreaterThan(followDelay(0));
    expect(followDelay(1000)).toBe(FOLLOW_BACKOFF.at(-1));
  });

  it("refetches while a payment is pending and stops once none is", () => {
    expect(followInterval({ state: { data: undefined, dataUpdateCount: 0 } })).toBe(false);
    expect(followInterval({ state: { data: order("paying"), dataUpdateCount: 1 } })).toBe(followDelay(1));
    expect(followInterval({ state: { data: [order("approving"), order("paying")], dataUpdateCount: 4 } })).toBe(followDelay(4));
    expect(followInterval({ state: { data: order("approving"), dataUpdateCount: 5 } })).toBe(false);
    expect(followInterval({ state: { data: [order("canceled"), order("new")], dataUpdateCount: 5 } })).toBe(false);
    expect(anyPending([order("paying")])).toBe(true);
  });
});

describe("an order's name", () => {
  const t = shopT("en");
  const ru = shopT("ru");

  it("is its number when the server gives one, else a neutral title, never its id", () => {
    expect(orderTitle({ number: 1042 }, t)).toBe("Order № 1042");
    expect(orderTitle({ number: 1042 }, ru)).toBe("Заказ № 1042");
    expect(orderTitle({}, t)).toBe("Your order");
    expect(orderTitle({ number: null }, ru)).toBe("Ваш заказ");
  });

  it("an order URL's last segment is looked up only when it is an id", () => {
    expect(isOrderId("01a22472-5525-7617-ba15-e3b4d4091ecf")).toBe(true);
    expect(isOrderId("1042")).toBe(false);
    expect(isOrderId("../admin")).toBe(false);
  });
});
