import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { reply, stubFetch } from "@/test-fetch";
import AdminApp from "./admin-app";

function mount(secondFactor: { enabled: boolean; required: boolean; satisfied: boolean }) {
  stubFetch((s) => {
    if (s.url.startsWith("/api/rbac/subjects/authentication/me")) return reply(200, { data: { id: "s1", admin: false, roles: [], identities: [], secondFactor } });
    if (s.url.startsWith("/api/meta")) return reply(200, { data: { languages: ["en", "ru"], modules: [], entities: [] } });
    return reply(404, { status: 404, code: "not_found", error: "no" });
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={["/admin"]}>
        <AdminApp />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("the admin of an account that must enrol a second factor first", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the enrolment screen with a link to the security settings instead of the admin", async () => {
    mount({ enabled: false, required: true, satisfied: false });
    expect(await screen.findByRole("heading", { name: "Turn on two-factor sign-in first" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Open security settings" })).toHaveAttribute("href", "/en/rbac/subjects/settings#security");
    expect(screen.queryByText("Not authorized")).toBeNull();
  });

  it("says 'Not authorized' to any other non-admin", async () => {
    mount({ enabled: false, required: false, satisfied: true });
    expect(await screen.findByRole("heading", { name: /Not authorized/ })).toBeInTheDocument();
    expect(screen.queryByTestId("enrolment-required")).toBeNull();
  });
});
