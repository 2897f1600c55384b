// Chats and the live connection end to end: two people chat and see each other within a second,
// a third person hears nothing, a page that went offline catches up, and an admin's edit shows on
// an open public page without a reload.
import { ADMIN, axeFindings, expect, screen, SECRET_KEY, signIn, watchedContext } from "./harness.mjs";
import { makePng } from "./media.spec.mjs";

const AUTH = "/en/rbac/subject/authentication";
const PASSWORD = "chat password 4821";
const PEOPLE = {
  alice: { email: "alice@chat.e2e.test", name: "Alice Chat" },
  bob: { email: "bob@chat.e2e.test", name: "Bob Chat" },
  carol: { email: "carol@chat.e2e.test", name: "Carol Chat" },
};
const LIVE_EVENTS = ["hello", "reset", "revalidate", "chat.created", "chat.message", "chat.message.edited", "chat.message.deleted", "chat.reaction", "chat.read"];

/**
 * A context whose pages log what their live connection goes through (`window.e2eLive`): each
 * `EventSource` by its number (`n`): made (`new`, with its URL), `open`, `error`, `close`, and
 * every event it receives (`type`, `id`, `data`); and the window's `online` and `offline`. The
 * specs read the events from it, and a failure prints it.
 */
async function liveContext(stack, opts = {}) {
  return watchedContext(stack, {
    ...opts,
    init: async (context) => {
      await context.addInitScript((types) => {
        const Native = window.EventSource;
        window.e2eLive = [];
        const log = (x) => window.e2eLive.push({ at: Date.now(), onLine: navigator.onLine, ...x });
        window.EventSource = class extends Native {
          constructor(url, init) {
            super(url, init);
            window.e2eLiveUrls = [...(window.e2eLiveUrls ?? []), String(url)];
            this.n = window.e2eLiveUrls.length;
            log({ type: "new", n: this.n, url: String(url) });
            this.addEventListener("open", () => log({ type: "open", n: this.n }));
            this.addEventListener("error", () => log({ type: "error", n: this.n, readyState: this.readyState }));
            for (const t of types) this.addEventListener(t, (e) => log({ type: t, n: this.n, id: e.lastEventId, data: e.data }));
          }
          close() {
            log({ type: "close", n: this.n });
            super.close();
          }
        };
        window.addEventListener("online", () => log({ type: "online" }));
        window.addEventListener("offline", () => log({ type: "offline" }));
      }, LIVE_EVENTS);
    },
  });
}

/** Registers through the form, then opens Chats from the navbar and creates the chat profile. */
async function join(w, who) {
  const { page } = w;
  await page.goto(`${AUTH}/email-and-password/registration`);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create an account" }).click();
  await page.getByTestId("account-menu").waitFor();
  await page.goto("/en/");
  await page.getByTestId("chat-button").first().click();
  await page.waitForURL((u) => u.pathname === "/en/social/chats");
  const form = page.getByTestId("create-profile");
  await form.getByLabel("Your name").fill(who.name);
  await form.getByRole("button", { name: "Create profile" }).click();
  await page.getByText("Profile created").first().waitFor();
  await page.getByTestId("chats").waitFor();
}

const messages = (page) => page.getByTestId("messages");
const message = (page, text) => messages(page).getByTestId("message").filter({ hasText: text });

/** Sends `text` with Enter and waits until the sender's own list shows it (the server has it). */
async function send(page, text) {
  const composer = page.getByTestId("composer");
  await composer.fill(text);
  await composer.press("Enter");
  await message(page, text).first().waitFor();
  return Date.now();
}

/** Waits for `locator` and fails unless it shows within `ms` of `since` (plus 100 ms for the probe itself). */
async function within(locator, since, ms, what) {
  await locator.waitFor({ timeout: Math.max(ms - (Date.now() - since), 1) }).catch(() => undefined);
  const took = Date.now() - since;
  console.log(`    ${what}: ${took} ms`);
  expect((await locator.count()) > 0 && took <= ms + 100, `${what} within ${ms} ms (took ${took} ms)`);
}

async function chatEvents(page) {
  return page.evaluate(() => window.e2eLive.filter((e) => e.type.startsWith("chat.")));
}

export const chatSpecs = [
  [
    "chat: three people register and create profiles; a chat starts; each sees the other's message within 1 s; the third hears nothing",
    async (stack, s) => {
      s.chat = {};
      for (const name of ["alice", "bob", "carol"]) {
        s.chat[name] = await liveContext(stack);
        await join(s.chat[name], PEOPLE[name]);
      }
      const alice = s.chat.alice.page;
      const bob = s.chat.bob.page;
      const carol = s.chat.carol.page;
      for (const p of [bob, carol]) await p.getByTestId("no-chats").waitFor();
      await screen(carol, "chat-empty");

      await alice.getByTestId("new-chat").click();
      const dialog = alice.getByRole("dialog", { name: "New chat" });
      await dialog.getByPlaceholder("Search profiles").fill("Bob Chat");
      await dialog.getByRole("button", { name: "Chat with Bob Chat" }).click();
      await dialog.waitFor({ state: "detached" });
      await alice.getByTestId("chat-title").getByText("Bob Chat").waitFor();
      // Bob did not reload: the new chat comes in live.
      await bob.getByTestId("chat-item").filter({ hasText: "Alice Chat" }).waitFor();

      const sent = await send(alice, "Hello Bob, shall we plant a tree?");
      await alice.getByText("Message created successfully").first().waitFor();
      await within(bob.getByTestId("chat-last-message").filter({ hasText: "Hello Bob, shall we plant a tree?" }), sent, 1000, "Bob's list shows Alice's message");
      await bob.getByTestId("chat-badge").getByText("1").first().waitFor();
      await bob.getByTestId("chat-unread").first().waitFor();
      await screen(bob, "chat-list-unread");

      await bob.getByTestId("chat-item").filter({ hasText: "Alice Chat" }).click();
      await message(bob, "Hello Bob, shall we plant a tree?").waitFor();
      // Bob read it: his badge clears and Alice sees the message read.
      await bob.getByTestId("chat-badge").waitFor({ state: "detached" });
      await message(alice, "Hello Bob").locator('[data-read="true"]').waitFor();

      const replied = await send(bob, "Hi Alice! Yes, a pine.");
      await within(message(alice, "Hi Alice! Yes, a pine."), replied, 1000, "Alice sees Bob's reply");
      // Her own message shows once although it came back live too.
      expect((await message(alice, "Hello Bob, shall we plant a tree?").count()) === 1, "no duplicate of the sender's message");

      // Shift+Enter is a new line; Enter sends.
      const composer = bob.getByTestId("composer");
      await composer.fill("line one");
      await composer.press("Shift+Enter");
      await composer.pressSequentially("line two");
      await composer.press("Enter");
      const twoLines = message(alice, "line one");
      await twoLines.waitFor();
      expect((await twoLines.getByTestId("message-text").innerText()).includes("line one\nline two"), "the message keeps its new line");
      await screen(alice, "chat-conversation");

      const events = await chatEvents(carol);
      expect(events.length === 0, `the third person received no chat event: ${JSON.stringify(events)}`);
      expect((await carol.getByTestId("chat-item").count()) === 0, "the third person's list stays empty");
      await carol.getByTestId("no-chats").waitFor();
    },
  ],
  [
    "chat: edits, reactions and deletions reach the other side live",
    async (_stack, s) => {
      const alice = s.chat.alice.page;
      const bob = s.chat.bob.page;
      const id = await message(alice, "Hello Bob, shall we plant a tree?").getAttribute("data-id");
      const mine = alice.locator(`[data-testid=message][data-id="${id}"]`);
      await mine.getByRole("button", { name: "Edit" }).click();
      const edit = mine.getByLabel("Edit message");
      await edit.fill("Hello Bob, shall we plant two trees?");
      await edit.press("Enter");
      await message(bob, "Hello Bob, shall we plant two trees?").getByTestId("edited").waitFor();

      await message(bob, "shall we plant two trees?").getByRole("button", { name: "React" }).click();
      await bob.getByRole("menuitem", { name: "👍" }).click();
      await message(alice, "shall we plant two trees?").getByRole("button", { name: "👍: 1" }).waitFor();
      // Alice adds the same reaction; Bob sees two, then Alice takes hers back.
      await message(alice, "shall we plant two trees?").getByRole("button", { name: "👍: 1" }).click();
      await message(bob, "shall we plant two trees?").getByRole("button", { name: "👍: 2" }).waitFor();
      await message(alice, "shall we plant two trees?").getByRole("button", { name: "👍: 2" }).click();
      await message(bob, "shall we plant two trees?").getByRole("button", { name: "👍: 1" }).waitFor();

      // A picture, sent without words: uploaded hidden, shown to Bob as a thumbnail, listed to nobody.
      await alice.getByLabel("Attach files").setInputFiles({ name: "chat-forest.png", mimeType: "image/png", buffer: makePng(300, 200, [16, 120, 60], [200, 240, 160]) });
      await alice.locator('[data-testid=attachment][data-ready="true"]').filter({ hasText: "chat-forest.png" }).waitFor();
      await alice.getByRole("button", { name: "Send" }).click();
      await alice.getByTestId("attachments").waitFor({ state: "detached" });
      const picture = bob.getByTestId("message-files").getByRole("img", { name: "chat-forest.png" });
      await picture.waitFor();
      await bob.waitForFunction(() => [...document.querySelectorAll("[data-testid=message-files] img")].some((i) => i.complete && i.naturalWidth === 256));
      const listed = await bob.evaluate(async () => (await fetch("/api/file-storage/files?limit=100")).text());
      expect(!listed.includes("chat-forest.png"), "an attachment is not in the public file list");

      await send(alice, "This one goes away");
      await message(bob, "This one goes away").waitFor();
      await message(alice, "This one goes away").getByRole("button", { name: "Delete" }).click();
      await alice.getByRole("alertdialog", { name: "Delete this message?" }).getByRole("button", { name: "Delete" }).click();
      await message(alice, "This one goes away").waitFor({ state: "detached" });
      await message(bob, "This one goes away").waitFor({ state: "detached" });
    },
  ],
  [
    "chat: a page that goes offline and comes back receives what it missed, without a reload",
    async (_stack, s) => {
      const alice = s.chat.alice.page;
      const bob = s.chat.bob.page;
      await bob.evaluate(() => {
        window.e2eStayed = true;
      });
      await s.chat.bob.context.setOffline(true);
      await bob.waitForFunction(() => !navigator.onLine);
      await send(alice, "Sent while you were offline");
      await send(alice, "And a second one");
      await bob.waitForTimeout(500);
      expect((await message(bob, "Sent while you were offline").count()) === 0, "nothing arrives while offline");
      await s.chat.bob.context.setOffline(false);
      await message(bob, "Sent while you were offline")
        .waitFor({ timeout: 5000 })
        .catch(async (e) => {
          const state = await bob.evaluate(() => ({
            online: navigator.onLine,
            live: window.e2eLive.slice(-20).map((x) => ({ ...x, data: x.data?.slice(0, 60) })),
            shown: document.querySelector("[data-testid=messages]")?.innerText.slice(-300),
          }));
          throw new Error(`${e.message}\n${JSON.stringify(state)}`);
        });
      await message(bob, "And a second one").waitFor();
      expect(await bob.evaluate(() => window.e2eStayed === true), "the page was not reloaded");
      const urls = await bob.evaluate(() => window.e2eLiveUrls);
      expect(urls.at(-1).includes("lastEventId="), `the reconnect resumed from the last event: ${urls.join(", ")}`);
      expect((await message(bob, "Sent while you were offline").count()) === 1, "each missed message once");
    },
  ],
  [
    "chat: at a phone's width the list and the chat are separate views",
    async (stack, s) => {
      s.chat.phone = await liveContext(stack, { viewport: { width: 390, height: 844 } });
      const { page } = s.chat.phone;
      await signIn(page, { email: PEOPLE.bob.email, password: PASSWORD }, "/en/");
      await page.waitForURL((u) => u.pathname === "/en/");
      await page.getByTestId("account-menu").waitFor({ state: "attached" });
      await page.getByTestId("menu-toggle").click();
      await page.getByTestId("mobile-menu").getByRole("link", { name: "Chats", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/en/social/chats");
      const item = page.getByTestId("chat-item").filter({ hasText: "Alice Chat" });
      await item.waitFor();
      expect(!(await page.getByText("Pick a chat to read it.").isVisible()), "no empty chat pane beside the list");
      await screen(page, "chat-mobile-list");
      await item.click();
      await message(page, "And a second one").waitFor();
      expect(!(await item.isVisible()), "the list is hidden while a chat is open");
      await screen(page, "chat-mobile-chat");
      await page.getByRole("button", { name: "Back to chats" }).click();
      await item.waitFor();
      // The same chat in Russian: a message written and sent from the keyboard alone leaves the box
      // empty at once; read at 390 px and at 1366 px.
      await page.goto("/ru/social/chats");
      await page.getByTestId("chat-item").filter({ hasText: "Alice Chat" }).click();
      await message(page, "And a second one").waitFor();
      const composer = page.getByTestId("composer");
      await composer.focus();
      await page.keyboard.type("Привет с телефона");
      await page.keyboard.press("Enter");
      expect((await composer.inputValue()) === "", "the box is empty as the message leaves");
      await message(page, "Привет с телефона").waitFor();
      await screen(page, "chat-mobile-chat-ru");
      await page.setViewportSize({ width: 1366, height: 900 });
      await screen(page, "chat-conversation-ru");
      const axe = await axeFindings(page);
      expect(axe.length === 0, `axe on the Russian chat: ${axe.join("; ")}`);
      await s.chat.phone.context.close();
    },
  ],
  [
    "chat: an admin's edit of a widget title shows on an open public page within 2 s, without a reload",
    async (stack, s) => {
      s.chat.visitor = await liveContext(stack);
      const { page } = s.chat.visitor;
      const before = "Let's plant a million trees together";
      const after = "Let's plant two million trees together";
      await page.goto("/en/");
      await page.getByRole("heading", { name: before }).waitFor();
      await page.evaluate(() => {
        window.e2eStayed = true;
      });
      const headers = { "content-type": "application/json", "x-rbac-secret-key": SECRET_KEY };
      const q = "filters[and][0][column]=variant&filters[and][0][method]=eq&filters[and][0][value]=content-block-for-planet-heading&limit=100";
      const list = await (await fetch(`${stack.base}/api/website-builder/widgets?${q}`, { headers })).json();
      const widget = list.data.find((w) => w.title?.en === before);
      expect(widget, `the hero widget: ${JSON.stringify(list.data?.map((w) => w.title))}`);
      const patch = (title) => fetch(`${stack.base}/api/website-builder/widgets/${widget.id}`, { method: "PATCH", headers, body: JSON.stringify({ title }) });
      const res = await patch({ ...widget.title, en: after });
      expect(res.ok, `PATCH answered ${res.status}: ${await res.text()}`);
      const edited = Date.now();
      await within(page.getByRole("heading", { name: after }), edited, 2000, "the new title on the open page");
      expect(await page.evaluate(() => window.e2eStayed === true), "the page was not reloaded");
      const restored = await patch(widget.title);
      expect(restored.ok, "the title is restored");
      await page.getByRole("heading", { name: before }).waitFor({ timeout: 5000 });
      const anonymous = await chatEvents(page);
      expect(anonymous.length === 0, "a visitor receives no chat event");
    },
  ],
  [
    "chat: an AI assistant answers a person, the answer growing as it is written, in en and ru; its admin page shows the model and the month's tokens",
    async (stack, s) => {
      const headers = { "content-type": "application/json", "x-rbac-secret-key": SECRET_KEY };
      const made = await fetch(`${stack.base}/api/social/profiles`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          variant: "artificial-intelligence",
          title: { en: "Garden Helper", ru: "Садовый помощник" },
          aiPrompt: { en: "You help with gardens.", ru: "Ты помогаешь с садом." },
          aiMonthlyTokens: 50000,
        }),
      });
      expect(made.ok, `the assistant's profile: ${made.status}`);
      const ai = (await made.json()).data;
      s.aiChat = await liveContext(stack);
      const dora = { email: "dora@chat.e2e.test", name: "Dora Chat" };
      await join(s.aiChat, dora);
      const { page } = s.aiChat;
      await page.getByTestId("new-chat").click();
      const dialog = page.getByRole("dialog", { name: "New chat" });
      await dialog.getByPlaceholder("Search profiles").fill("Garden Helper");
      await dialog.getByRole("button", { name: "Chat with Garden Helper" }).click();
      await dialog.waitFor({ state: "detached" });
      const question = "Which trees grow well by the sea, in a small and windy garden?";
      const sent = await send(page, question);
      const answer = `You said: Dora Chat: ${question}`;
      await within(message(page, answer), sent, 5000, "the assistant's whole answer");
      // It came in parts over the live channel before it was whole.
      const events = await chatEvents(page);
      const parts = events
        .filter((e) => e.type === "chat.message.edited")
        .map((e) => JSON.parse(e.data).message)
        .filter((m) => m.profileId === ai.id)
        .map((m) => m.description);
      expect(parts.some((p) => p.length < answer.length && answer.startsWith(p)), `streamed in parts: ${JSON.stringify(parts)}`);
      await screen(page, "chat-ai-en");
      await page.setViewportSize({ width: 390, height: 844 });
      await screen(page, "chat-ai-390-en");

      // In Russian, on the Russian site.
      await page.setViewportSize({ width: 1366, height: 900 });
      await page.goto("/ru/social/chats");
      await page.getByTestId("chat-item").filter({ hasText: "Садовый помощник" }).click();
      const ru = "Какие деревья растут у моря?";
      const sentRu = await send(page, ru);
      await within(message(page, `You said: Dora Chat: ${ru}`), sentRu, 5000, "the answer in the Russian chat");
      await screen(page, "chat-ai-ru");
      await page.setViewportSize({ width: 390, height: 844 });
      await screen(page, "chat-ai-390-ru");

      // The admin's page of the assistant: the model and this month's tokens, in en and ru.
      s.aiAdmin = await watchedContext(stack, { viewport: { width: 1366, height: 900 } });
      const admin = s.aiAdmin.page;
      await signIn(admin, ADMIN, `/admin/social/profile?edit=${ai.id}`);
      const panel = admin.getByTestId("ai-profile-panel");
      await panel.getByText("with the model gpt-4o-mini").waitFor();
      const usage = await panel.getByTestId("ai-usage").innerText();
      expect(/This month: [1-9][\d,]* of 50,000 tokens used/.test(usage), `the month's tokens: ${usage}`);
      await panel.scrollIntoViewIfNeeded();
      await screen(admin, "ai-profile-en");
      await admin.evaluate(() => localStorage.setItem("stoa.admin.language", "ru"));
      await admin.reload();
      await admin.getByTestId("ai-profile-panel").getByText("Отвечает в своих чатах моделью gpt-4o-mini").waitFor();
      await admin.getByTestId("ai-profile-panel").scrollIntoViewIfNeeded();
      await screen(admin, "ai-profile-ru");
      await admin.evaluate(() => localStorage.setItem("stoa.admin.language", "en"));
    },
  ],
];
