import { localize, shortAddress } from "./link";

const L = ["en", "ru"] as const;

describe("the link rule", () => {
  it("prefixes a plain path with the language", () => {
    expect(localize("/blog/articles/a", "ru", L)).toBe("/ru/blog/articles/a");
    expect(localize("blog", "en", L)).toBe("/en/blog");
  });
  it("turns an empty target into /", () => {
    expect(localize("", "ru", L)).toBe("/");
    expect(localize(null, "ru", L)).toBe("/");
    expect(localize("  ", "en", L)).toBe("/");
  });
  it("leaves a target with a colon as it is", () => {
    expect(localize("https://example.com/x", "ru", L)).toBe("https://example.com/x");
    expect(localize("mailto:hi@example.com", "en", L)).toBe("mailto:hi@example.com");
    expect(localize("tel:+7000", "en", L)).toBe("tel:+7000");
  });
  it("leaves a language root as it is", () => {
    expect(localize("/ru", "en", L)).toBe("/ru");
    expect(localize("/en/", "ru", L)).toBe("/en/");
  });
  it("does not take a path that merely starts like a language for a root", () => {
    expect(localize("/rules", "en", L)).toBe("/en/rules");
  });
});

describe("wallet addresses", () => {
  it("shows the first 6 and the last 4 characters", () => {
    expect(shortAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")).toBe("0x7099…79C8");
  });
});
