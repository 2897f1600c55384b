import { cleanup, screen, waitFor } from "@testing-library/react";
import i18n from "@/i18n";
import { reply, stubFetch } from "@/test-fetch";
import { AuthGate, Authorized } from "./gate";
import { emailIdentity, mount, subjectWith } from "@/test-session";

describe("AuthGate", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows a busy skeleton while the session is asked", async () => {
    // The answer never comes.
    const sent = stubFetch(() => new Promise<Response>(() => {}));
    mount(
      <AuthGate fallback={<p>signed out</p>}>
        <p>secret</p>
      </AuthGate>,
    );
    const skeleton = screen.getByTestId("gate-skeleton");
    expect(skeleton).toHaveAttribute("aria-busy", "true");
    expect(skeleton).toHaveTextContent("loading...");
    expect(skeleton.querySelector(".animate-pulse")).not.toBeNull();
    expect(screen.queryByText("secret")).toBeNull();
    expect(screen.queryByText("signed out")).toBeNull();
    await waitFor(() => expect(sent[0]?.url).toBe("/api/rbac/subjects/authentication/me"));
    expect(screen.getByTestId("gate-skeleton")).toBeInTheDocument();
  });

  it("shows the fallback to a visitor who is not signed in", async () => {
    stubFetch(() => reply(200, { data: null }));
    mount(
      <AuthGate fallback={<p>signed out</p>}>
        <p>secret</p>
      </AuthGate>,
    );
    expect(await screen.findByText("signed out")).toBeInTheDocument();
    expect(screen.queryByText("secret")).toBeNull();
    expect(screen.queryByTestId("gate-skeleton")).toBeNull();
  });

  it("shows the children to a signed-in visitor (a function of children gets the subject)", async () => {
    stubFetch(() => reply(200, { data: subjectWith(emailIdentity()) }));
    mount(
      <AuthGate fallback={<p>signed out</p>}>
        {(s) => <p>{`hello ${s.id}`}</p>}
      </AuthGate>,
    );
    expect(await screen.findByText("hello s1")).toBeInTheDocument();
    expect(screen.queryByText("signed out")).toBeNull();
  });

  it("with guests={false}, shows a guest (a checkout's subject, a contact email only) the fallback", async () => {
    stubFetch(() => reply(200, { data: subjectWith(emailIdentity({ provider: "email", email: "donor@example.com" })) }));
    mount(
      <AuthGate guests={false} fallback={<p>signed out</p>}>
        <p>secret</p>
      </AuthGate>,
    );
    expect(await screen.findByText("signed out")).toBeInTheDocument();
    expect(screen.queryByText("secret")).toBeNull();
  });

  it("by default, shows a guest the children (its cart and orders are its own)", async () => {
    stubFetch(() => reply(200, { data: subjectWith() }));
    mount(
      <AuthGate fallback={<p>signed out</p>}>
        <p>its orders</p>
      </AuthGate>,
    );
    expect(await screen.findByText("its orders")).toBeInTheDocument();
  });
});

describe("Authorized", () => {
  afterEach(async () => {
    vi.unstubAllGlobals();
    cleanup();
    await i18n.changeLanguage("en");
  });

  it("asks the server about the method and route, and shows the children when allowed", async () => {
    const sent = stubFetch(() => reply(200, { data: { ok: true } }));
    mount(
      <Authorized method="PATCH" route="/api/rbac/subjects/s1">
        <p>allowed</p>
      </Authorized>,
    );
    expect(screen.getByTestId("gate-skeleton")).toBeInTheDocument();
    expect(await screen.findByText("allowed")).toBeInTheDocument();
    const url = new URL(sent[0]!.url, "http://x");
    expect(url.pathname).toBe("/api/rbac/subjects/authentication/is-authorized");
    expect(url.searchParams.get("action[method]")).toBe("PATCH");
    expect(url.searchParams.get("action[route]")).toBe("/api/rbac/subjects/s1");
  });

  it("says 'Not authorized' when refused", async () => {
    stubFetch(() => reply(403, { status: 403, code: "forbidden", error: "forbidden" }));
    mount(
      <Authorized route="/api/admin">
        <p>allowed</p>
      </Authorized>,
    );
    expect(await screen.findByText("Not authorized")).toBeInTheDocument();
    expect(screen.queryByText("allowed")).toBeNull();
  });

  it("says it in Russian on a Russian page", async () => {
    await i18n.changeLanguage("ru");
    stubFetch(() => reply(403, { status: 403, code: "forbidden", error: "forbidden" }));
    mount(
      <Authorized route="/api/admin">
        <p>allowed</p>
      </Authorized>,
    );
    expect(await screen.findByText("Нет доступа")).toBeInTheDocument();
  });
});
