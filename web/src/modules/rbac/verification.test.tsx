import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { toast } from "sonner";
import i18n from "@/i18n";
import { reply, stubFetch } from "@/test-fetch";
import { SettingsScreen } from "./screens";
import { meKey } from "@/lib/session";
import { emailIdentity, mount, subjectWith } from "@/test-session";
import { AddEmailSection, VerificationStep } from "./verification";

vi.mock("sonner", () => ({ toast: { success: vi.fn(), error: vi.fn() } }));

const ME = "/api/rbac/subjects/authentication/me";
const VERIFY = "/api/rbac/subjects/s1/identities/i1/verify";
const RESEND = "/api/rbac/subjects/s1/identities/i1/verification";

function error(status: number, message: string, fields?: Record<string, string[]>) {
  const code = { 409: "conflict", 422: "invalid_input", 429: "too_many_requests" }[status] ?? "error";
  return reply(status, { status, code, error: message, fields });
}

describe("the verification step", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  function step(answer: Parameters<typeof stubFetch>[0]) {
    const sent = stubFetch(answer);
    const onVerified = vi.fn();
    const view = mount(<VerificationStep subject="s1" identity="i1" email="a@b.test" onVerified={onVerified} />, { me: subjectWith(emailIdentity()) });
    return { sent, onVerified, ...view };
  }

  it("says where the code went and takes six digits from a one-time-code field", () => {
    step(() => reply(200, { data: null }));
    expect(screen.getByText("We sent a 6-digit code to a@b.test")).toBeInTheDocument();
    const box = screen.getByLabelText("Confirmation code");
    expect(box).toHaveAttribute("inputmode", "numeric");
    expect(box).toHaveAttribute("autocomplete", "one-time-code");
    expect(box).toHaveAttribute("maxlength", "6");
  });

  it("checks the format before sending, sends the code, then says so and asks for the subject again", async () => {
    const confirmed = emailIdentity({ verifiedAt: "2026-05-01T00:00:00Z" });
    const { sent, onVerified, qc } = step((s) => (s.url === VERIFY ? reply(200, { data: confirmed }) : reply(200, { data: subjectWith(confirmed) })));
    const invalidate = vi.spyOn(qc, "invalidateQueries");
    await userEvent.type(screen.getByLabelText("Confirmation code"), "12a");
    await userEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText("Enter the 6 digits from the mail")).toBeInTheDocument();
    expect(sent).toHaveLength(0);
    await userEvent.clear(screen.getByLabelText("Confirmation code"));
    await userEvent.type(screen.getByLabelText("Confirmation code"), "123456");
    await userEvent.click(screen.getByRole("button", { name: "Confirm" }));
    await waitFor(() => expect(onVerified).toHaveBeenCalledWith(confirmed));
    expect(sent[0]).toEqual({ method: "POST", url: VERIFY, body: { code: "123456" } });
    expect(toast.success).toHaveBeenCalledWith("Email address confirmed");
    expect(invalidate).toHaveBeenCalledWith({ queryKey: meKey });
  });

  it("shows a wrong code on the field and stays", async () => {
    const { onVerified } = step(() => error(422, "invalid input", { code: ["is wrong or expired; check the latest mail or ask for a new code"] }));
    await userEvent.type(screen.getByLabelText("Confirmation code"), "000000");
    await userEvent.click(screen.getByRole("button", { name: "Confirm" }));
    const message = await screen.findByText("This code is wrong or expired; check the latest mail or send a new code.");
    expect(screen.getByLabelText("Confirmation code")).toHaveAttribute("aria-describedby", message.id);
    expect(screen.getByLabelText("Confirmation code")).toHaveAttribute("aria-invalid", "true");
    expect(onVerified).not.toHaveBeenCalled();
    expect(toast.success).not.toHaveBeenCalled();
  });

  it("after ten wrong codes points to 'Forgot your password?'", async () => {
    step(() => error(409, 'too many wrong codes for this address; confirm it with "Forgot your password?" instead'));
    await userEvent.type(screen.getByLabelText("Confirmation code"), "000000");
    await userEvent.click(screen.getByRole("button", { name: "Confirm" }));
    expect(await screen.findByText(/confirm it with “Forgot your password\?” on the sign-in page/)).toBeInTheDocument();
  });

  it("sends a new code (a toast says where) and says how long to wait when asked too often", async () => {
    const answers = [reply(201, { data: { ok: true, sentTo: "a@b.test" } }), error(429, "too many requests; try again in 30 s")];
    const { sent } = step(() => answers.shift()!);
    await userEvent.click(screen.getByRole("button", { name: "Send a new code" }));
    await waitFor(() => expect(toast.success).toHaveBeenCalledWith("A new code is on its way to a@b.test"));
    expect(sent[0]).toEqual({ method: "POST", url: RESEND, body: undefined });
    await userEvent.click(screen.getByRole("button", { name: "Send a new code" }));
    expect(await screen.findByText("Too many attempts; try again in 30 seconds.")).toBeInTheDocument();
    expect(toast.success).toHaveBeenCalledTimes(1);
  });
});

describe("the email-add form", () => {
  afterEach(async () => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
    cleanup();
    await i18n.changeLanguage("en");
  });

  const wallet = { id: "w1", provider: "ethereum_virtual_machine", email: null, account: "0xabc", verifiedAt: null, pendingEmail: null };

  it("has the placeholder 'Type your email' and the button 'Add' in English", () => {
    mount(<AddEmailSection subject={subjectWith(wallet)} />);
    expect(screen.getByPlaceholderText("Type your email")).toHaveAttribute("type", "email");
    expect(screen.getByRole("button", { name: "Add" })).toHaveAttribute("type", "submit");
  });

  it("has the button 'Добавить' in Russian", async () => {
    await i18n.changeLanguage("ru");
    mount(<AddEmailSection subject={subjectWith(wallet)} />);
    expect(screen.getByPlaceholderText("Введите ваш email")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Добавить" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Add" })).toBeNull();
  });

  it("is not offered to an account that has an email identity", () => {
    const { container } = mount(<AddEmailSection subject={subjectWith(wallet, emailIdentity())} />);
    expect(container).toBeEmptyDOMElement();
  });

  it("adds the identity, then asks for the code sent to it", async () => {
    const added = emailIdentity({ id: "i9", email: "new@b.test" });
    const sent = stubFetch((s) => (s.url === ME ? reply(200, { data: subjectWith(wallet, added) }) : reply(201, { data: added })));
    mount(<AddEmailSection subject={subjectWith(wallet)} />, { me: subjectWith(wallet) });
    await userEvent.type(screen.getByPlaceholderText("Type your email"), "new@b.test");
    await userEvent.type(screen.getByLabelText("Password"), "long enough password");
    await userEvent.click(screen.getByRole("button", { name: "Add" }));
    expect(await screen.findByText("We sent a 6-digit code to new@b.test")).toBeInTheDocument();
    expect(sent[0]).toEqual({ method: "POST", url: "/api/rbac/subjects/s1/identities", body: { provider: "email_and_password", email: "new@b.test", password: "long enough password" } });
  });

  it("puts a taken address on the email field", async () => {
    stubFetch(() => error(409, "conflict", { email: ["is already registered"] }));
    mount(<AddEmailSection subject={subjectWith(wallet)} />, { me: subjectWith(wallet) });
    await userEvent.type(screen.getByPlaceholderText("Type your email"), "taken@b.test");
    await userEvent.type(screen.getByLabelText("Password"), "long enough password");
    await userEvent.click(screen.getByRole("button", { name: "Add" }));
    expect(await screen.findByText("This email is already registered; sign in or reset the password.")).toBeInTheDocument();
    expect(screen.queryByText(/We sent a 6-digit code/)).toBeNull();
  });
});

describe("the settings' email identity", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  // The security section asks for the sessions.
  const server = () => stubFetch(() => reply(200, { data: [] }));

  it("marks an unconfirmed address and confirms it in a dialog", async () => {
    server();
    mount(<SettingsScreen />, { me: subjectWith(emailIdentity()) });
    const row = screen.getByTestId("identity");
    expect(within(row).getByText("Not confirmed")).toBeInTheDocument();
    await userEvent.click(within(row).getByRole("button", { name: "Confirm" }));
    const dialog = await screen.findByRole("dialog", { name: "Confirm your email" });
    expect(within(dialog).getByText("We sent a 6-digit code to a@b.test")).toBeInTheDocument();
  });

  it("shows no badge for a confirmed address, and the change waiting for its code", () => {
    server();
    mount(<SettingsScreen />, { me: subjectWith(emailIdentity({ verifiedAt: "2026-05-01T00:00:00Z", pendingEmail: "new@b.test" })) });
    const row = screen.getByTestId("identity");
    expect(within(row).queryByText("Not confirmed")).toBeNull();
    expect(within(row).getByText("Changing to new@b.test — enter the code sent there")).toBeInTheDocument();
    expect(within(row).getByRole("button", { name: "Enter the code" })).toBeInTheDocument();
    expect(screen.queryByTestId("email-add")).toBeNull();
  });

  it("changes the email: the new address and the password, then the code sent there", async () => {
    const waiting = emailIdentity({ verifiedAt: "2026-05-01T00:00:00Z", pendingEmail: "new@b.test" });
    const sent = stubFetch((s) => (s.method === "PATCH" ? reply(200, { data: waiting }) : s.url === ME ? reply(200, { data: subjectWith(waiting) }) : reply(200, { data: [] })));
    mount(<SettingsScreen />, { me: subjectWith(emailIdentity({ verifiedAt: "2026-05-01T00:00:00Z" })) });
    await userEvent.click(screen.getByRole("button", { name: "Change email" }));
    const dialog = await screen.findByRole("dialog", { name: "Change email" });
    await userEvent.type(within(dialog).getByLabelText("New email"), "new@b.test");
    await userEvent.type(within(dialog).getByLabelText("Current password"), "my password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send the code" }));
    expect(await within(dialog).findByText("We sent a 6-digit code to new@b.test")).toBeInTheDocument();
    expect(sent.find((s) => s.method === "PATCH")).toEqual({ method: "PATCH", url: "/api/rbac/subjects/s1/identities/i1", body: { email: "new@b.test", password: "my password" } });
  });

  it("offers the email-add form to an account without an email identity", () => {
    server();
    mount(<SettingsScreen />, { me: subjectWith({ id: "w1", provider: "ethereum_virtual_machine", email: null, account: "0xabc", verifiedAt: null, pendingEmail: null }) });
    expect(within(screen.getByTestId("email-add")).getByPlaceholderText("Type your email")).toBeInTheDocument();
  });

  it("asks a visitor who is not signed in to sign in", () => {
    server();
    mount(<SettingsScreen />, { me: null });
    expect(screen.getByText("Sign in to see your settings.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/en/rbac/subject/authentication/select-method");
  });
});
