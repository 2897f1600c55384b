import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { reply, stubFetch } from "@/test-fetch";
import { emailIdentity, mount, subjectWith } from "@/test-session";
import { VerifyEmailScreen } from "./verify-email";

vi.mock("sonner", () => ({ toast: { success: vi.fn(), error: vi.fn() } }));

const URL = "/en/rbac/subject/verify-email?identity=i1&code=123456";
const VERIFY = "/api/rbac/subjects/s1/identities/i1/verify";

describe("the verify-email page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks a visitor who is not signed in to sign in, and comes back here after", () => {
    stubFetch(() => reply(200, { data: null }));
    mount(<VerifyEmailScreen />, { me: null, url: URL });
    expect(screen.getByText("Sign in to the account you are confirming")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", `/en/rbac/subject/authentication/select-method?redirect=${encodeURIComponent("/en/rbac/subject/verify-email?identity=i1&code=123456")}`);
  });

  it("shows the code with a button and sends nothing on load (mail scanners open links)", async () => {
    const confirmed = emailIdentity({ verifiedAt: "2026-05-01T00:00:00Z" });
    const sent = stubFetch((s) => (s.url === VERIFY ? reply(200, { data: confirmed }) : reply(200, { data: subjectWith(confirmed) })));
    mount(<VerifyEmailScreen />, { me: subjectWith(emailIdentity()), url: URL });
    expect(screen.getByLabelText("Confirmation code")).toHaveValue("123456");
    expect(sent).toHaveLength(0);
    await userEvent.click(screen.getByRole("button", { name: "Confirm email" }));
    expect(await screen.findByText(/Your email address is confirmed\./)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to the settings" })).toHaveAttribute("href", "/en/rbac/subjects/settings");
    expect(sent[0]).toEqual({ method: "POST", url: VERIFY, body: { code: "123456" } });
  });

  it("shows a wrong or expired code's error", async () => {
    stubFetch(() => reply(422, { status: 422, code: "invalid_input", error: "invalid input", fields: { code: ["is wrong or expired; check the latest mail or ask for a new code"] } }));
    mount(<VerifyEmailScreen />, { me: subjectWith(emailIdentity()), url: URL });
    await userEvent.click(screen.getByRole("button", { name: "Confirm email" }));
    expect(await screen.findByText("This code is wrong or expired; check the latest mail or send a new code.")).toBeInTheDocument();
    expect(screen.queryByText(/Your email address is confirmed/)).toBeNull();
  });

  it("tells the owner of another account that the link is not theirs", () => {
    stubFetch(() => reply(200, { data: null }));
    mount(<VerifyEmailScreen />, { me: subjectWith(emailIdentity({ id: "other" })), url: URL });
    expect(screen.getByText(/confirms an address of another account/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Confirm email" })).toBeNull();
  });

  it("says when the link has no code", async () => {
    stubFetch(() => reply(200, { data: null }));
    mount(<VerifyEmailScreen />, { me: null, url: "/en/rbac/subject/verify-email" });
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("This link has no confirmation code."));
  });
});
