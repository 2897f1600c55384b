import { describe, expect, it } from "vitest";
import { cardOffer, widgetOptions, type CardWidget } from "./card-donation";
import type { Invoice, ProviderOffer } from "./api";

const widget: CardWidget = { script: "https://widget.cloudpayments.ru/bundles/cloudpayments.js", publicId: "pk_1", global: "cp.CloudPayments" };
const rub = { id: "c-rub", slug: "rub", symbol: "₽", title: "Рубль", isDefault: true };
const kzt = { id: "c-kzt", slug: "kzt", symbol: "₸", title: "Тенге", isDefault: false };
const prices = [
  { amount: "995", currency: kzt },
  { amount: "199", currency: rub },
] as never;

describe("the card donation", () => {
  it("pays roubles through the provider whose widget takes them, else none", () => {
    const offers = [
      { provider: "dummy", currencies: [], statusApi: false },
      { provider: "tiptoppay", currencies: ["kzt"], statusApi: true, widget: { ...widget, global: "tiptop.Widget" } },
      { provider: "cloudpayments", currencies: ["rub"], statusApi: true, widget },
    ] as ProviderOffer[];
    const found = cardOffer(offers, prices);
    expect(found?.offer.provider).toBe("cloudpayments");
    expect(found?.price.amount).toBe("199");
    // Without a rouble widget, the tenge one serves its own price.
    const tenge = cardOffer(offers.filter((o) => o.provider !== "cloudpayments"), prices);
    expect([tenge?.offer.provider, tenge?.price.amount]).toEqual(["tiptoppay", "995"]);
    expect(cardOffer([{ provider: "dummy", currencies: [], statusApi: false }] as ProviderOffer[], prices)).toBeNull();
  });

  it("gives the widget SPEC §2's options: the invoice's amount and id, RUB, skin mini, the email required", () => {
    const invoice = { id: "inv-1", amount: "398", currency: "rub", successUrl: "/ru/ecommerce/checkout/success?orders=o1" } as Invoice;
    expect(widgetOptions(widget, invoice, "Дерево — 2 шт.", "donor@example.com")).toEqual({
      publicId: "pk_1",
      description: "Дерево — 2 шт.",
      amount: 398,
      currency: "RUB",
      invoiceId: "inv-1",
      accountId: "donor@example.com",
      email: "donor@example.com",
      requireEmail: true,
      skin: "mini",
      data: { invoiceId: "inv-1" },
    });
  });
});
