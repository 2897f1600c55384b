import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { toast } from "sonner";
import { reply, stubFetch } from "@/test-fetch";
import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./forms";
import { emailIdentity, mount, subjectWith } from "@/test-session";

vi.mock("sonner", () => ({ toast: { success: vi.fn(), error: vi.fn() } }));

const RESET = "/api/rbac/subjects/authentication/email-and-password/reset-password";

async function reset(outcome: unknown) {
  const sent = stubFetch(() => reply(201, { data: outcome }));
  mount(<ResetPasswordScreen />, { url: "/en/rbac/subject/authentication/email-and-password/reset-password?code=c0de" });
  await userEvent.type(screen.getByLabelText("New password"), "a new password");
  await userEvent.type(screen.getByLabelText("Confirm password"), "a new password");
  await userEvent.click(screen.getByRole("button", { name: "Reset password" }));
  await screen.findByText(/Your password is changed/);
  return sent;
}

describe("the password reset", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("says 'Password reset successfully' and lists nothing when nothing was removed", async () => {
    const sent = await reset({ ok: true, removedIdentities: [], secondFactorRemoved: false });
    expect(toast.success).toHaveBeenCalledWith("Password reset successfully");
    expect(sent[0]).toEqual({ method: "POST", url: RESET, body: { code: "c0de", password: "a new password", passwordConfirmation: "a new password" } });
    expect(screen.queryByTestId("reset-removed")).toBeNull();
  });

  it("lists the sign-in methods and the second factor the reset removed", async () => {
    await reset({
      ok: true,
      removedIdentities: [
        { provider: "ethereum_virtual_machine", account: "0xabc", email: null },
        { provider: "telegram", account: "987654321", email: null },
      ],
      secondFactorRemoved: true,
    });
    const box = screen.getByTestId("reset-removed");
    expect(box).toHaveTextContent("For your safety these sign-in methods, added before your address was confirmed, were removed:");
    const items = [...box.querySelectorAll("li")].map((li) => li.textContent);
    expect(items).toEqual(["Wallet 0xabc", "Telegram 987654321"]);
    expect(box).toHaveTextContent("Two-factor sign-in was turned off");
  });

  it("says only that two-factor sign-in was turned off when no method was removed", async () => {
    await reset({ ok: true, removedIdentities: [], secondFactorRemoved: true });
    const box = screen.getByTestId("reset-removed");
    expect(box).toHaveTextContent("Two-factor sign-in was turned off");
    expect(box.querySelector("li")).toBeNull();
  });
});

describe("forgot password", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("says 'Reset link sent' in a toast and in the card", async () => {
    stubFetch(() => reply(201, { data: { ok: true } }));
    mount(<ForgotPasswordScreen />);
    await userEvent.type(screen.getByLabelText("Email"), "a@b.test");
    await userEvent.click(screen.getByRole("button", { name: "Send reset link" }));
    expect(await screen.findByText("If an account uses this email, a reset link is on its way.")).toBeInTheDocument();
    expect(toast.success).toHaveBeenCalledWith("Reset link sent");
  });
});

describe("registration", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it("turns into the code step for the new address, with 'Later' on to where the visitor was going", async () => {
    const sent = stubFetch((s) => (s.url.endsWith("/me") ? reply(200, { data: subjectWith(emailIdentity({ email: "new@b.test" })) }) : reply(201, { data: { jwt: "j", refresh: "r" } })));
    mount(<RegistrationScreen />, { me: null, url: "/en/rbac/subject/authentication/email-and-password/registration?redirect=%2Fen%2Fshop" });
    await userEvent.type(screen.getByLabelText("Email"), "new@b.test");
    await userEvent.type(screen.getByLabelText("Password"), "long enough password");
    await userEvent.click(screen.getByRole("button", { name: "Create an account" }));
    expect(await screen.findByRole("heading", { name: "Confirm your email" })).toBeInTheDocument();
    expect(await screen.findByText("We sent a 6-digit code to new@b.test")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Later" })).toHaveAttribute("href", "/en/shop");
    await waitFor(() => expect(sent.some((s) => s.url.endsWith("/registration"))).toBe(true));
  });
});
