import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { queryClientOptions } from "@/query";
import { reply as json, stubFetch } from "@/test-fetch";
import { NotificationPanel, NotificationsView, parseData, sendAction, TemplatePreview } from "./admin";

const reply = (body: unknown, status = 200) => json(status, body);

function mount(node: React.ReactNode) {
  const qc = new QueryClient(queryClientOptions);
  return render(<QueryClientProvider client={qc}>{node}</QueryClientProvider>);
}

describe("notification admin", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("offers a retry on a failed notification, sending on a queued one, nothing on a sent one", () => {
    expect(sendAction("failed")).toBe("retry");
    expect(sendAction("new")).toBe("sendNow");
    expect(sendAction("sent")).toBeNull();
    expect(sendAction("read")).toBeNull();
  });

  it("reads the preview's data as a JSON object", () => {
    expect(parseData('{"a": 1}')).toEqual({ data: { a: 1 } });
    expect(parseData("  ")).toEqual({ data: {} });
    expect(parseData("[1]")).toEqual({ error: "admin.invalidJson" });
    expect(parseData("{nope")).toEqual({ error: "admin.invalidJson" });
  });

  it("lists status, attempts and the last error, and retries a failed one", async () => {
    const failed = { id: "n1", title: "Password reset", reciever: "a@b.test", method: "email", status: "failed", attempts: 2, error: "550 mailbox unavailable", createdAt: "2026-03-01T10:00:00Z" };
    const calls = stubFetch((c) => (c.method === "POST" ? reply({ data: { ok: true, status: "new", queued: true } }) : reply({ data: [failed] })));
    mount(<NotificationsView lang="en" />);
    await screen.findByText("550 mailbox unavailable");
    expect(screen.getByTestId("notification-attempts")).toHaveTextContent("2");
    expect(screen.getByTestId("notification-status")).toHaveTextContent("Failed");
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.url === "/api/notification/notifications/n1/send")).toBe(true));
    await userEvent.click(screen.getByRole("button", { name: "Send all due" }));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.url === "/api/notification/topics/send-all")).toBe(true));
  });

  it("previews a template for typed data in a chosen language", async () => {
    const calls = stubFetch(() => reply({ data: { subject: "Сброс пароля", body: "Ссылка: https://x.test/r" } }));
    mount(<TemplatePreview id="t1" lang="en" />);
    const data = screen.getByLabelText("Data (JSON)");
    await userEvent.clear(data);
    await userEvent.type(data, "{{nope");
    await userEvent.click(screen.getByRole("button", { name: "Preview" }));
    expect(screen.getByText("Not valid JSON")).toBeInTheDocument();
    expect(calls).toHaveLength(0);
    await userEvent.clear(data);
    // (userEvent.type reads `{` as a key descriptor: `{{` types one brace.)
    await userEvent.type(data, '{{"resetUrl": "https://x.test/r"}');
    await userEvent.selectOptions(screen.getByLabelText("Language"), "ru");
    await userEvent.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByTestId("template-preview-subject")).toHaveTextContent("Сброс пароля");
    expect(screen.getByTestId("template-preview-body")).toHaveTextContent("Ссылка: https://x.test/r");
    expect(calls).toEqual([{ url: "/api/notification/templates/t1/render", method: "POST", body: { data: { resetUrl: "https://x.test/r" }, language: "ru" } }]);
  });

  it("shows a message as its recipient gets it, and says why nothing was sent in development", async () => {
    const n = { id: "n1", title: "Confirm your email address", reciever: "a@b.test", method: "email", status: "new", attempts: 0 };
    const message = {
      to: "a@b.test",
      subject: "Confirm your email address",
      text: "Your confirmation code is 123456.\n\nhttps://x.test/en/rbac/subject/verify-email?identity=i&code=123456\n",
      html: "<p>Your confirmation code is 123456.</p>",
      language: "en",
      links: ["https://x.test/en/rbac/subject/verify-email?identity=i&code=123456"],
      delivered: false,
      status: "new",
    };
    const calls = stubFetch((c) => reply({ data: c.url.endsWith("/message") ? message : n }));
    mount(<NotificationPanel id="n1" lang="en" />);
    expect(await screen.findByTestId("notification-message-subject")).toHaveTextContent("Confirm your email address");
    expect(screen.getByTestId("notification-outbox-only")).toBeInTheDocument();
    expect(screen.getByTestId("notification-message-text")).toHaveTextContent("Your confirmation code is 123456.");
    expect(screen.getByRole("link", { name: message.links[0] })).toHaveAttribute("href", message.links[0]);
    expect(screen.getByTitle("HTML version")).toHaveAttribute("sandbox", "");
    expect(calls.some((c) => c.url === "/api/notification/notifications/n1/message")).toBe(true);
  });

  it("does not say 'nothing is sent' about mail a configured server delivers", async () => {
    const message = { to: "a@b.test", subject: "S", text: "T", html: "", language: "en", links: [], delivered: true, status: "sent" };
    stubFetch((c) => reply({ data: c.url.endsWith("/message") ? message : { id: "n1", status: "sent" } }));
    mount(<NotificationPanel id="n1" lang="en" />);
    await screen.findByTestId("notification-message-subject");
    expect(screen.queryByTestId("notification-outbox-only")).toBeNull();
  });
});
