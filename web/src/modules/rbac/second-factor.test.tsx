import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { reply, stubFetch } from "@/test-fetch";
import { cleanCode, codeProblem, SecondFactorStep } from "./second-factor";

const URL = "/api/rbac/subjects/authentication/second-factor";

function mount(status: number[]) {
  const answers = [...status];
  const sent = stubFetch(() => {
    const s = answers.shift() ?? 500;
    return s === 201 ? reply(201, { data: { jwt: "j", refresh: "r" } }) : reply(s, { status: s, code: s === 422 ? "invalid_input" : s === 401 ? "unauthorized" : "too_many_requests", error: s === 429 ? "too many requests; try again in 30 s" : "no", fields: s === 422 ? { code: ["is not right"] } : undefined });
  });
  const onSignedIn = vi.fn();
  const onRestart = vi.fn();
  render(<SecondFactorStep challenge="ch-1" onSignedIn={onSignedIn} onRestart={onRestart} />);
  return { sent, onSignedIn, onRestart };
}

describe("the second sign-in step", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("reads codes as typed: spaces out, six digits from the app, anything from the recovery list", () => {
    expect(cleanCode(" 123 456 ", false)).toBe("123456");
    expect(cleanCode("abcde-fghij", true)).toBe("abcde-fghij");
    expect(codeProblem("12345", false)).toBe("format");
    expect(codeProblem("123456", false)).toBeNull();
    expect(codeProblem("", true)).toBe("empty");
  });

  it("checks the six digits before sending, stays on a wrong code, then signs in", async () => {
    const { sent, onSignedIn, onRestart } = mount([422, 201]);
    const box = screen.getByLabelText("Code");
    expect(box).toHaveAttribute("autocomplete", "one-time-code");
    await userEvent.type(box, "123");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("Enter the 6 digits from the app")).toBeInTheDocument();
    expect(sent).toHaveLength(0);
    await userEvent.clear(box);
    await userEvent.type(box, "111 111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("This code is not right; try again.")).toBeInTheDocument();
    expect(sent[0]).toMatchObject({ method: "POST", url: URL, body: { challenge: "ch-1", code: "111111" } });
    await userEvent.type(screen.getByLabelText("Code"), "222222");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledTimes(1));
    expect(onRestart).not.toHaveBeenCalled();
  });

  it("sends a recovery code as typed and goes back to the password when the challenge expired", async () => {
    const { sent, onSignedIn, onRestart } = mount([401]);
    await userEvent.click(screen.getByRole("button", { name: "Use a recovery code" }));
    await userEvent.type(screen.getByLabelText("Recovery code"), "abcde-fghij");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    await vi.waitFor(() => expect(onRestart).toHaveBeenCalledWith("The sign-in took too long; enter your password again."));
    expect(sent[0]?.body).toEqual({ challenge: "ch-1", code: "abcde-fghij" });
    expect(onSignedIn).not.toHaveBeenCalled();
  });

  it("says how long to wait when rate limited", async () => {
    mount([429]);
    await userEvent.type(screen.getByLabelText("Code"), "123456");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("Too many attempts; try again in 30 seconds.")).toBeInTheDocument();
  });
});
