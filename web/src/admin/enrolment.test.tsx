import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import i18n from "@/i18n";
import { reply, stubFetch } from "@/test-fetch";
import AdminApp from "./admin-app";

/** Where a redirect ended (any address outside the admin). */
function Where() {
  const { pathname, search } = useLocation();
  return <p data-testid="where">{pathname + search}</p>;
}

function mount(secondFactor: { enabled: boolean; required: boolean; satisfied: boolean } | null, at = "/admin") {
  stubFetch((s) => {
    if (s.url.startsWith("/api/rbac/subjects/authentication/me"))
      return secondFactor ? reply(200, { data: { id: "s1", admin: false, roles: [], identities: [], secondFactor } }) : reply(401, { status: 401, code: "unauthorized", error: "no session" });
    if (s.url.startsWith("/api/meta")) return reply(200, { data: { languages: ["en", "ru"], modules: [], entities: [] } });
    return reply(404, { status: 404, code: "not_found", error: "no" });
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="/admin/:module?/:entity?" element={<AdminApp />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("the admin of an account that must enrol a second factor first", () => {
  beforeEach(() => localStorage.setItem("stoa.admin.language", "en"));
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it("shows the enrolment screen with a link to the security settings instead of the admin", async () => {
    mount({ enabled: false, required: true, satisfied: false });
    expect(await screen.findByRole("heading", { name: "Turn on two-factor sign-in first" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Open security settings" })).toHaveAttribute("href", "/en/rbac/subjects/settings#security");
    expect(screen.queryByText("Not authorized")).toBeNull();
  });

  it("says 'Not authorized' to any other non-admin, with the way to another account", async () => {
    mount({ enabled: false, required: false, satisfied: true }, "/admin/blog/article?edit=a1");
    expect(await screen.findByRole("heading", { name: /Not authorized/ })).toBeInTheDocument();
    expect(screen.queryByTestId("enrolment-required")).toBeNull();
    expect(screen.getByRole("link", { name: "Sign in with another account" })).toHaveAttribute("href", `/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent("/admin/blog/article?edit=a1")}`);
  });
});

describe("the admin for someone signed out", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it("sends them to sign in, in the admin's last language, and back to the same screen after", async () => {
    localStorage.setItem("stoa.admin.language", "en");
    mount(null, "/admin/ecommerce/order?edit=o1");
    // (the site's default here is ru: the kept choice wins)
    expect(await screen.findByTestId("where")).toHaveTextContent(`/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent("/admin/ecommerce/order?edit=o1")}`);
    await i18n.changeLanguage("en");
  });
});
