import { DEFAULT_LANGUAGE } from "@/i18n";
import { adminLanguage, adminSignInUrl, rememberAdminLanguage } from "./language";

describe("the admin's language", () => {
  afterEach(() => localStorage.clear());

  it("is the site's default until one is chosen, then the chosen one (across reloads: it is kept)", () => {
    expect(adminLanguage()).toBe(DEFAULT_LANGUAGE);
    rememberAdminLanguage("en");
    expect(adminLanguage()).toBe("en");
    rememberAdminLanguage("fr");
    expect(adminLanguage()).toBe("en");
    expect(localStorage.getItem("stoa.admin.language")).toBe("en");
  });

  it("on a browser that chose none, is the account's (another device opens in it); a choice here wins", () => {
    const other = DEFAULT_LANGUAGE === "ru" ? "en" : "ru";
    expect(adminLanguage(other)).toBe(other);
    expect(adminLanguage("fr")).toBe(DEFAULT_LANGUAGE);
    expect(adminLanguage(null)).toBe(DEFAULT_LANGUAGE);
    rememberAdminLanguage(DEFAULT_LANGUAGE);
    expect(adminLanguage(other)).toBe(DEFAULT_LANGUAGE);
  });

  it("is the sign-in's language for someone sent there from the admin", () => {
    rememberAdminLanguage("en");
    expect(adminSignInUrl("/admin/crm/request?edit=r1")).toBe(`/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent("/admin/crm/request?edit=r1")}`);
    expect(adminSignInUrl("/admin", "ru")).toMatch(/^\/ru\/rbac\/subject\/authentication\/select-method\?redirect=%2Fadmin$/);
  });
});
