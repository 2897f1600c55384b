import { reply, stubFetch } from "@/test-fetch";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import { queryClientOptions } from "@/query";
import { type Subject } from "./session";
import { fromRedirect, TELEGRAM_WIDGET, TelegramLink, telegramBody, type TelegramUser } from "./telegram";

const subject: Subject = {
  id: "s1",
  admin: false,
  roles: [],
  identities: [
    { id: "i1", provider: "email_and_password", email: "a@b.test", account: null, verifiedAt: "2026-01-01T00:00:00Z", pendingEmail: null },
    { id: "i2", provider: "telegram", email: null, account: "987654321", verifiedAt: null, pendingEmail: null },
  ],
};
const user: TelegramUser = { id: 123456789, first_name: "Ada", username: "ada", photo_url: "https://t.me/i/userpic/320/ada.jpg", auth_date: 1767225600, hash: "a".repeat(64) };

function mount(bot: string | null | undefined, blockedHint?: string) {
  const qc = new QueryClient(queryClientOptions);
  return render(
    <QueryClientProvider client={qc}>
      <TelegramLink bot={bot} subject={subject} lang="en" blockedHint={blockedHint} />
    </QueryClientProvider>,
  );
}

describe("Link Telegram", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("renders nothing (and loads no script) when the site has no bot", () => {
    const { container } = mount(undefined);
    expect(container).toBeEmptyDOMElement();
    mount(null);
    expect(document.querySelector(`script[src="${TELEGRAM_WIDGET}"]`)).toBeNull();
  });

  it("says why instead of the widget while an email address waits for its code", () => {
    mount("stoa_site_bot", "Confirm your email to link a wallet or Telegram");
    expect(screen.getByTestId("telegram-blocked")).toHaveTextContent("Confirm your email to link a wallet or Telegram");
    expect(screen.queryByTestId("telegram-widget")).toBeNull();
    expect(document.querySelector(`script[src="${TELEGRAM_WIDGET}"]`)).toBeNull();
  });

  it("sends the widget's fields exactly as received, with the provider", () => {
    expect(telegramBody({ ...user, last_name: "L" })).toEqual({ ...user, last_name: "L", provider: "telegram" });
  });

  it("reads the fields Telegram sends back, keeping only those present", () => {
    expect(fromRedirect("?id=123456789&first_name=Ada&auth_date=1767225600&hash=" + "a".repeat(64))).toEqual({ id: 123456789, first_name: "Ada", auth_date: 1767225600, hash: "a".repeat(64) });
    expect(fromRedirect("?id=1&hash=x")).toBeNull();
    expect(fromRedirect("")).toBeNull();
  });

  it("loads the official widget in redirect mode and links what Telegram sends back", async () => {
    const calls = stubFetch(() => reply(201, { data: { id: "i3", provider: "telegram", account: "123456789", email: null } }));
    const q = new URLSearchParams({ id: String(user.id), first_name: user.first_name, username: user.username!, photo_url: user.photo_url!, auth_date: String(user.auth_date), hash: user.hash });
    window.history.replaceState(null, "", `/en/rbac/subjects/settings?${q}`);
    mount("stoa_site_bot");
    expect(screen.getByRole("heading", { name: "Link Telegram" })).toBeInTheDocument();
    expect(screen.getByTestId("telegram-linked")).toHaveTextContent("Telegram account 987654321");
    const script = document.querySelector<HTMLScriptElement>(`script[src="${TELEGRAM_WIDGET}"]`);
    expect(script).not.toBeNull();
    expect(script!.dataset.telegramLogin).toBe("stoa_site_bot");
    expect(script!.dataset.requestAccess).toBe("write");
    expect(script!.dataset.authUrl).toBe(window.location.origin + "/en/rbac/subjects/settings");
    expect(script!.dataset.onauth).toBeUndefined();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toEqual({ url: "/api/rbac/subjects/s1/identities", method: "POST", body: { ...user, provider: "telegram" } });
    // The signed fields leave the address bar.
    expect(window.location.search).toBe("");
  });
});
