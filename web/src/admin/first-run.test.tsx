import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { reply, stubFetch } from "@/test-fetch";
import { SignedOut } from "./first-run";

function mount() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } })}>
      <MemoryRouter initialEntries={["/admin/blog/article"]}>
        <Routes>
          <Route path="/admin/*" element={<SignedOut />} />
          <Route path="*" element={<p>the sign-in page</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("the admin, signed out", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("sends someone to sign in once the site has an admin", async () => {
    stubFetch(() => reply(200, { data: { needed: false } }));
    mount();
    expect(await screen.findByText("the sign-in page")).toBeInTheDocument();
  });

  it("on a new site, makes the first admin with the setup code, and says a wrong code beside it", async () => {
    const sent = stubFetch((s) => {
      if (s.method === "GET") return reply(200, { data: { needed: true } });
      const body = s.body as { code: string };
      return body.code === "ABCD-EFGH-JKLM"
        ? reply(201, { data: { jwt: "j", refresh: "r" } })
        : reply(422, { status: 422, code: "invalid_input", error: "code: this is not the setup code the server printed in its log", fields: { code: ["this is not the setup code the server printed in its log"] } });
    });
    mount();
    await screen.findByRole("heading", { name: "Welcome to Stoa" });
    await userEvent.type(screen.getByLabelText("Setup code"), "WRONG-CODE");
    await userEvent.type(screen.getByLabelText("Your email"), "owner@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse battery");
    await userEvent.click(screen.getByRole("button", { name: "Create the administrator" }));
    expect(await screen.findByText("This is not the code from the server's log. Check it and try again.")).toBeInTheDocument();
    expect(screen.getByLabelText("Setup code")).toHaveAttribute("aria-invalid", "true");
    await userEvent.clear(screen.getByLabelText("Setup code"));
    await userEvent.type(screen.getByLabelText("Setup code"), "ABCD-EFGH-JKLM");
    await userEvent.click(screen.getByRole("button", { name: "Create the administrator" }));
    await waitFor(() => expect(sent.filter((s) => s.method === "POST")).toHaveLength(2));
    expect(sent.filter((s) => s.method === "POST")[1]!.body).toEqual({ code: "ABCD-EFGH-JKLM", login: "owner@example.com", password: "correct horse battery" });
  });
});
