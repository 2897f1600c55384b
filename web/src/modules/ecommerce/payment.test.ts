import { bankOfCurrency, currencyChoices, paymentFor } from "./payment";

const cur = (slug: string, isDefault = false) => ({ id: slug, slug, symbol: slug, title: slug, isDefault });
const prices = [
  { amount: "995", currency: cur("kzt") },
  { amount: "199", currency: cur("rub", true) },
];
const offer = (provider: string, currencies: string[] = []) => ({ provider, currencies, statusApi: false });

describe("paymentFor: the provider and price a card's bank pays with", () => {
  it("a Russian card prefers CloudPayments in roubles; a Kazakh card pays tenge through TipTopPay only", () => {
    expect(paymentFor("ru", [offer("dummy"), offer("cloudpayments", ["rub"])], prices)).toMatchObject({ bank: "ru", provider: "cloudpayments", price: { amount: "199" } });
    expect(paymentFor("kz", [offer("tiptoppay", ["kzt"])], prices)).toMatchObject({ bank: "kz", provider: "tiptoppay", price: { amount: "995" } });
    expect(paymentFor("kz", [offer("dummy"), offer("cloudpayments", ["rub"])], prices)).toBeUndefined();
  });

  it("never charges a Russian card in tenge, nor through TipTopPay", () => {
    expect(paymentFor("ru", [offer("tiptoppay", ["kzt"])], prices)).toBeUndefined();
    expect(paymentFor("ru", [offer("tiptoppay")], prices)).toBeUndefined();
  });

  it("a foreign card pays by Stripe, or none when no foreign card provider is enabled (the bank details are shown)", () => {
    expect(paymentFor("foreign", [offer("cloudpayments", ["rub"]), offer("stripe")], prices)).toMatchObject({ provider: "stripe", price: { amount: "199" } });
    expect(paymentFor("foreign", [offer("dummy"), offer("cloudpayments", ["rub"])], prices)).toBeUndefined();
  });

  it("a Russian card falls back to a provider that is no bank's own (the demo's dummy), never to one without roubles", () => {
    expect(paymentFor("ru", [offer("dummy")], prices)?.provider).toBe("dummy");
    expect(paymentFor("ru", [offer("stripe")], prices)).toBeUndefined();
    expect(paymentFor("ru", [offer("payselection-international", ["usd"])], prices)).toBeUndefined();
  });
});

describe("the choices offered", () => {
  const all = [offer("dummy"), offer("cloudpayments", ["rub"]), offer("stripe"), offer("tiptoppay", ["kzt"])];

  it("the product page offers one choice per price some provider charges", () => {
    expect(currencyChoices(all, prices).map((m) => `${m.price.currency.slug}:${m.provider}`)).toEqual(["rub:cloudpayments", "kzt:tiptoppay"]);
    expect(currencyChoices([offer("dummy")], prices).map((m) => m.price.currency.slug)).toEqual(["rub"]);
    const usd = [...prices, { amount: "2", currency: cur("usd") }];
    expect(currencyChoices([offer("payselection-international", ["usd", "eur"])], usd).map((m) => `${m.price.currency.slug}:${m.provider}`)).toEqual(["usd:payselection-international"]);
  });

  it("a currency is paid with the cards of its country, any other with foreign ones", () => {
    expect([bankOfCurrency("RUB"), bankOfCurrency("kzt"), bankOfCurrency("usd")]).toEqual(["ru", "kz", "foreign"]);
  });
});
