import { walletOffered } from "./methods";

describe("walletOffered", () => {
  it("follows the site's methods when the server sends them", () => {
    expect(walletOffered(["email_and_password"], true)).toBe(false);
    expect(walletOffered(["email_and_password", "ethereum_virtual_machine"], true)).toBe(true);
    expect(walletOffered([], true)).toBe(false);
  });

  it("needs a wallet in the browser either way", () => {
    expect(walletOffered(["ethereum_virtual_machine"], false)).toBe(false);
    expect(walletOffered(undefined, false)).toBe(false);
    expect(walletOffered(null, false)).toBe(false);
  });

  it("without the site's methods, is offered where the browser has a wallet", () => {
    expect(walletOffered(undefined, true)).toBe(true);
    expect(walletOffered(null, true)).toBe(true);
  });
});
