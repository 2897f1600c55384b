import i18n from "@/i18n";
import { reply, stubFetch } from "@/test-fetch";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { queryClientOptions } from "@/query";
import { type Subject } from "@/lib/session";
import { fromRedirect, TELEGRAM_STATE, TELEGRAM_WIDGET, TelegramLink, telegramBody, telegramReturn, type TelegramUser, withoutTelegramFields } from "./telegram";

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

  it("accepts the fields only with the state this tab stored, and strips only Telegram's parameters", () => {
    const fields = `id=1&auth_date=2&hash=h&first_name=A`;
    expect(telegramReturn(`?${TELEGRAM_STATE}=s1&${fields}`, "s1")).toEqual({ user: { id: 1, auth_date: 2, hash: "h", first_name: "A" }, ours: true });
    expect(telegramReturn(`?${TELEGRAM_STATE}=s2&${fields}`, "s1")?.ours).toBe(false);
    expect(telegramReturn(`?${fields}`, "s1")?.ours).toBe(false);
    expect(telegramReturn(`?${TELEGRAM_STATE}=&${fields}`, "")?.ours).toBe(false);
    expect(telegramReturn(`?${TELEGRAM_STATE}=s1&${fields}`, null)?.ours).toBe(false);
    expect(telegramReturn(`?${TELEGRAM_STATE}=s1`, "s1")).toBeNull();
    expect(withoutTelegramFields(`?tab=2&${TELEGRAM_STATE}=s1&${fields}&last_name=B&username=u&photo_url=p`)).toBe("?tab=2");
    expect(withoutTelegramFields(`?${fields}`)).toBe("");
  });
});

describe("Coming back from Telegram", () => {
  const settings = "/en/rbac/subjects/settings";
  const signed = new URLSearchParams({ id: String(user.id), first_name: user.first_name, username: user.username!, photo_url: user.photo_url!, auth_date: String(user.auth_date), hash: user.hash });
  const created = () => reply(201, { data: { id: "i3", provider: "telegram", account: "123456789", email: null } });

  beforeEach(() => {
    sessionStorage.clear();
    window.history.replaceState(null, "", settings);
  });
  afterEach(async () => {
    vi.unstubAllGlobals();
    cleanup();
    await i18n.changeLanguage("en");
  });

  /** Shows the widget as the settings page does and returns the address Telegram sends the
   * browser back to: its auth URL with the signed fields added to the query. */
  function startFromWidget(fields: URLSearchParams = signed): string {
    const { unmount } = mount("stoa_site_bot");
    const script = document.querySelector<HTMLScriptElement>(`script[src="${TELEGRAM_WIDGET}"]`);
    const authUrl = new URL(script!.dataset.authUrl!);
    unmount();
    for (const [k, v] of fields) authUrl.searchParams.append(k, v);
    return authUrl.pathname + authUrl.search;
  }

  it("loads the official widget in redirect mode with a fresh state kept in this tab", () => {
    mount("stoa_site_bot");
    expect(screen.getByRole("heading", { name: "Link Telegram" })).toBeInTheDocument();
    expect(screen.getByTestId("telegram-linked")).toHaveTextContent("Telegram account 987654321");
    const script = document.querySelector<HTMLScriptElement>(`script[src="${TELEGRAM_WIDGET}"]`);
    expect(script).not.toBeNull();
    expect(script!.dataset.telegramLogin).toBe("stoa_site_bot");
    expect(script!.dataset.requestAccess).toBe("write");
    expect(script!.dataset.onauth).toBeUndefined();
    const authUrl = new URL(script!.dataset.authUrl!);
    expect(authUrl.origin + authUrl.pathname).toBe(window.location.origin + settings);
    const state = authUrl.searchParams.get(TELEGRAM_STATE);
    expect(state).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.values(sessionStorage)).toEqual([state]);
  });

  it("asks before linking what this tab asked Telegram for, and links it only on 'Link', with the fields exactly as received", async () => {
    const calls = stubFetch(created);
    window.history.replaceState(null, "", startFromWidget());
    mount("stoa_site_bot");
    const dialog = await screen.findByRole("dialog", { name: "Link Telegram account @ada (Ada)?" });
    expect(dialog).toHaveTextContent("Link it only if it is your own Telegram account.");
    // The fields and the state leave the address bar at once, before any answer.
    expect(window.location.pathname + window.location.search).toBe(settings);
    // Nothing is sent until the user says so; the widget waits behind the question.
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([]);
    expect(screen.queryByTestId("telegram-widget")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Link" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]).toEqual({ url: "/api/rbac/subjects/s1/identities", method: "POST", body: { ...user, provider: "telegram" } });
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.queryByTestId("telegram-not-ours")).toBeNull();
  });

  it("links nothing on 'Cancel', and the same return cannot be used again", async () => {
    const calls = stubFetch(created);
    const back = startFromWidget();
    window.history.replaceState(null, "", back);
    const first = mount("stoa_site_bot");
    await userEvent.click(await screen.findByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(window.location.search).toBe("");
    first.unmount();
    // The same address again (a reload from history, a copy): the state was spent.
    window.history.replaceState(null, "", back);
    mount("stoa_site_bot");
    expect(await screen.findByRole("alert")).toHaveTextContent("This Telegram sign-in was not started on this page, so nothing was linked.");
    expect(screen.queryByRole("dialog")).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([]);
  });

  it("spends the state on arrival: the same return, opened again before or after answering, links nothing", async () => {
    const calls = stubFetch(created);
    const back = startFromWidget();
    window.history.replaceState(null, "", back);
    const first = mount("stoa_site_bot");
    await screen.findByRole("dialog");
    // Spent already, while the question waits (no widget is shown meanwhile to replace it).
    expect(sessionStorage.length).toBe(0);
    first.unmount();
    window.history.replaceState(null, "", back);
    const second = mount("stoa_site_bot");
    expect(await screen.findByTestId("telegram-not-ours")).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).toBeNull();
    second.unmount();
    // A new round trip works once, and its address replayed after 'Link' does not.
    const again = startFromWidget();
    window.history.replaceState(null, "", again);
    const third = mount("stoa_site_bot");
    await userEvent.click(await screen.findByRole("button", { name: "Link" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    third.unmount();
    window.history.replaceState(null, "", again);
    mount("stoa_site_bot");
    expect(await screen.findByTestId("telegram-not-ours")).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toHaveLength(1);
  });

  it("links nothing from a crafted link without a state, says so, and cleans the address", async () => {
    const calls = stubFetch(created);
    window.history.replaceState(null, "", `${settings}?${signed}#telegram`);
    mount("stoa_site_bot");
    expect(screen.getByRole("alert")).toHaveTextContent("This Telegram sign-in was not started on this page, so nothing was linked.");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(window.location.pathname + window.location.search + window.location.hash).toBe(`${settings}#telegram`);
    // The widget stays, for the user's own Telegram.
    expect(screen.getByTestId("telegram-widget")).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([]);
  });

  it("links nothing from a crafted link with another state while this tab holds one", async () => {
    const calls = stubFetch(created);
    startFromWidget();
    const held = Object.values(sessionStorage)[0];
    expect(held).toMatch(/^[0-9a-f]{32}$/);
    window.history.replaceState(null, "", `${settings}?${TELEGRAM_STATE}=${"0".repeat(32)}&${signed}`);
    mount("stoa_site_bot");
    expect(screen.getByTestId("telegram-not-ours")).toHaveTextContent("nothing was linked");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(window.location.search).toBe("");
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toEqual([]);
  });

  it("asks and warns in Russian on a Russian page", async () => {
    await i18n.changeLanguage("ru");
    stubFetch(created);
    window.history.replaceState(null, "", startFromWidget(new URLSearchParams({ id: "5", first_name: "Ада", last_name: "Лавлейс", auth_date: "1", hash: "h" })));
    const first = mount("stoa_site_bot");
    expect(await screen.findByRole("dialog", { name: "Привязать аккаунт Telegram Ада Лавлейс (ID 5)?" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Привязать" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Отмена" })).toBeInTheDocument();
    first.unmount();
    window.history.replaceState(null, "", `${settings}?${signed}`);
    mount("stoa_site_bot");
    expect(screen.getByRole("alert")).toHaveTextContent("ничего не привязано");
  });
});
