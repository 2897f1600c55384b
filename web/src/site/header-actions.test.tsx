import { screen } from "@testing-library/react";
import type { ReactNode } from "react";
import i18n from "@/i18n";
import type { Subject } from "@/lib/session";
import { emailIdentity, mount as mountAt, subjectWith } from "@/test-session";
import { AccountEntries, AccountEntryLink, accountEntryOf, AccountMenu } from "./header-actions";

/** Renders `node` on a page at `url`, in that page's language. */
function mount(node: ReactNode, me: Subject | null, url = "/ru/") {
  void i18n.changeLanguage(url.slice(1, 3));
  return mountAt(node, { me, url });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const guest: Subject = { ...subjectWith(emailIdentity({ provider: "email", email: "donor@example.com" })), id: "0194f5a2-7c1e-7b3a-9d4e-2f6a8b0c1d2e", roles: [{ id: "r", slug: "guest", title: "Guest" }] };
const person: Subject = subjectWith(emailIdentity({ email: "vera@example.com" }));

afterAll(() => i18n.changeLanguage("en"));

describe("the header's account entry", () => {
  it("is 'Войти' for a guest (a checkout's subject), with no id, role or 'Выйти'", () => {
    const { container } = mount(<AccountMenu />, guest);
    expect(screen.getByRole("button", { name: "Войти" })).toBeInTheDocument();
    expect(container.textContent).not.toMatch(UUID);
    expect(container.textContent).not.toMatch(/guest|Выйти/);
  });

  it("is 'Войти' for a visitor", () => {
    mount(<AccountMenu />, null);
    expect(screen.getByRole("button", { name: "Войти" })).toBeInTheDocument();
  });
});

describe("AccountEntries (the mobile menu's)", () => {
  it("offers a guest sign-in and registration", () => {
    mount(<AccountEntries />, guest);
    expect(screen.getByRole("link", { name: "Войти" })).toHaveAttribute("href", "/ru/rbac/subject/authentication/select-method");
    expect(screen.getByRole("link", { name: "Регистрация" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Выйти" })).toBeNull();
  });

  it("offers a person settings, orders, chats and sign-out, in the page's language", () => {
    mount(<AccountEntries />, person, "/en/");
    expect(screen.getByRole("link", { name: "Settings" })).toHaveAttribute("href", "/en/rbac/subjects/settings");
    expect(screen.getByRole("link", { name: "My orders" })).toHaveAttribute("href", "/en/ecommerce/orders");
    expect(screen.getByRole("link", { name: "Chats" })).toHaveAttribute("href", "/en/social/chats");
    expect(screen.getByRole("button", { name: "Sign out" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Admin" })).toBeNull();
  });
});

describe("a content link to sign-in or registration (the footer's)", () => {
  it("is recognised by its path, with or without the language", () => {
    expect(accountEntryOf("/rbac/subject/authentication/select-method")).toBe("signIn");
    expect(accountEntryOf("/en/rbac/subject/authentication/email-and-password/registration/")).toBe("register");
    expect(accountEntryOf("/rbac/subject/authentication/select-method?redirect=/x")).toBe("signIn");
    expect(accountEntryOf("/blog")).toBeNull();
    expect(accountEntryOf("mailto:hello@forplanet.example")).toBeNull();
    expect(accountEntryOf(null)).toBeNull();
  });

  it("reads as the header does for a visitor, and turns into the account and sign-out for a person", () => {
    const { unmount } = mount(
      <>
        <AccountEntryLink entry="signIn" />
        <AccountEntryLink entry="register" />
      </>,
      null,
      "/en/",
    );
    expect(screen.getByRole("link", { name: "Sign in" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Register" })).toBeInTheDocument();
    unmount();
    mount(
      <>
        <AccountEntryLink entry="signIn" />
        <AccountEntryLink entry="register" />
      </>,
      person,
      "/en/",
    );
    expect(screen.getByRole("link", { name: "Account" })).toHaveAttribute("href", "/en/rbac/subjects/settings");
    expect(screen.getByRole("button", { name: "Sign out" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Sign in" })).toBeNull();
  });
});
