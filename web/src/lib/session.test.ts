import { displayName, type Identity, isGuest, isSignedIn, type Subject } from "./session";
import { emailIdentity, subjectWith } from "@/test-session";

const contact = (email: string): Identity => emailIdentity({ id: "c1", provider: "email", email });
const wallet: Identity = emailIdentity({ id: "w1", provider: "ethereum_virtual_machine", email: null, account: "0x8ba1f109551bD432803012645Ac136ddd64DBA72" });
const telegram: Identity = emailIdentity({ id: "t1", provider: "telegram", email: null, account: "123456" });
const ANON = "0194f5a2-7c1e-7b3a-9d4e-2f6a8b0c1d2e";
const anonymous = (...identities: Identity[]): Subject => ({ ...subjectWith(...identities), id: ANON, roles: [{ id: "r", slug: "guest", title: "Guest" }] });

describe("isGuest", () => {
  it("is true for the anonymous subject a checkout starts (no identity)", () => {
    expect(isGuest(anonymous())).toBe(true);
    expect(isSignedIn(anonymous())).toBe(false);
  });

  it("is true for a guest who typed an email at checkout (an address to write to, not a sign-in)", () => {
    expect(isGuest(anonymous(contact("donor@example.com")))).toBe(true);
    expect(isGuest(anonymous(contact("a@b.test"), contact("c@d.test")))).toBe(true);
  });

  it("is false once the subject has an identity it signs in with", () => {
    expect(isGuest(subjectWith(emailIdentity()))).toBe(false);
    expect(isGuest(subjectWith(wallet))).toBe(false);
    expect(isGuest(subjectWith(telegram))).toBe(false);
    expect(isGuest(anonymous(contact("donor@example.com"), emailIdentity()))).toBe(false);
    expect(isSignedIn(subjectWith(emailIdentity()))).toBe(true);
  });

  it("is false for an admin, and for nobody at all", () => {
    expect(isGuest({ ...subjectWith(), admin: true })).toBe(false);
    expect(isGuest(null)).toBe(false);
    expect(isGuest(undefined)).toBe(false);
    expect(isSignedIn(null)).toBe(false);
  });
});

describe("displayName", () => {
  it("is the profile's name when the server gives one", () => {
    expect(displayName({ ...subjectWith(emailIdentity()), name: "  Вера Лесная " }, "Account")).toBe("Вера Лесная");
  });

  it("is the sign-in email, before any other address", () => {
    expect(displayName(subjectWith(contact("contact@b.test"), emailIdentity({ email: "me@b.test" })), "Account")).toBe("me@b.test");
  });

  it("is never an id or a wallet address: the fallback instead", () => {
    expect(displayName(subjectWith(wallet), "Аккаунт")).toBe("Аккаунт");
    expect(displayName(subjectWith(telegram), "Account")).toBe("Account");
    expect(displayName(anonymous(), "Account")).toBe("Account");
    expect(displayName({ ...subjectWith(emailIdentity()), name: "   " }, "Account")).toBe("a@b.test");
    // A contact address is a guest's, not a name to greet a signed-in person by.
    expect(displayName(anonymous(contact("donor@example.com")), "Account")).toBe("Account");
  });
});
