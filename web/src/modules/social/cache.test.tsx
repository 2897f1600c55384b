import { QueryClient } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { type Chat, chatName, chatsKey, type Message, messagesKey, readByOthers, unreadLabel } from "./api";
import { applyChatEvent, applyMessage, chatsWithMessage, chatWithRead, mergeMessages, type MessageList, prependOlder, withNewest } from "./cache";
import { Composer } from "./chat";

const msg = (id: string, position: number, profileId = "them", extra: Partial<Message> = {}): Message => ({
  id,
  variant: "default",
  title: null,
  subtitle: null,
  description: `text ${id}`,
  className: null,
  sourceSystemId: null,
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
  editedAt: null,
  chatId: "c1",
  position,
  profileId,
  reactions: [],
  files: [],
  ...extra,
});

const chat = (id: string, extra: Partial<Chat> = {}): Chat => ({
  id,
  variant: "default",
  adminTitle: id,
  slug: id,
  title: null,
  description: null,
  className: null,
  sourceSystemId: null,
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
  members: [
    { id: "me", slug: null, adminTitle: null, variant: null, title: { en: "Me" }, lastRead: 0 },
    { id: "them", slug: null, adminTitle: null, variant: null, title: { en: "Them" }, lastRead: 0 },
  ],
  lastMessage: null,
  unread: 0,
  lastRead: 0,
  ...extra,
});

describe("a chat's history", () => {
  it("merges by id, in position order, so a message seen twice shows once", () => {
    const list: MessageList = { messages: [msg("a", 10), msg("c", 30)], hasMore: false };
    const once = mergeMessages(list, [msg("b", 20)]);
    const twice = mergeMessages(once, [msg("b", 20, "them", { description: "edited" })]);
    expect(twice.messages.map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect(twice.messages[1]!.description).toBe("edited");
    // The same microsecond: ordered by id.
    expect(mergeMessages(list, [msg("0", 10)]).messages.map((m) => m.id)).toEqual(["0", "a", "c"]);
  });

  it("puts older pages in front and knows when the history ends", () => {
    const list: MessageList = { messages: [msg("c", 30)], hasMore: true };
    expect(prependOlder(list, [msg("a", 10), msg("b", 20)], 2)).toEqual({ messages: [msg("a", 10), msg("b", 20), msg("c", 30)], hasMore: true });
    expect(prependOlder(list, [msg("b", 20)], 2).hasMore).toBe(false);
  });

  it("a refetch of the newest page keeps the older history loaded before it", () => {
    const old: MessageList = { messages: [msg("a", 10), msg("b", 20), msg("c", 30), msg("gone", 35)], hasMore: true };
    const page = [msg("c", 30, "them", { description: "edited" }), msg("d", 40)];
    const next = withNewest(old, page, 2);
    expect(next.messages.map((m) => m.id)).toEqual(["a", "b", "c", "d"]);
    expect(next.messages[2]!.description).toBe("edited");
    expect(next.hasMore).toBe(true);
    // A short page is the whole chat.
    expect(withNewest(old, [msg("d", 40)], 2)).toEqual({ messages: [msg("d", 40)], hasMore: false });
    expect(withNewest(undefined, page, 2).hasMore).toBe(true);
  });

  it("a refetch that was out while a live message came keeps that message, and only that one", () => {
    const atStart: MessageList = { messages: [msg("a", 10), msg("gone", 20)], hasMore: false };
    // While the request was out: "live" arrived by an event; the server had read the page before.
    const now: MessageList = { messages: [...atStart.messages, msg("live", 30)], hasMore: false };
    const page = [msg("a", 10)];
    expect(withNewest(now, page, 50, atStart).messages.map((m) => m.id)).toEqual(["a", "live"]);
    // A full page, older history kept before it, the live one after it.
    const long: MessageList = { messages: [msg("old", 5), msg("a", 10), msg("b", 20), msg("live", 30)], hasMore: true };
    const start: MessageList = { messages: long.messages.slice(0, 3), hasMore: true };
    expect(withNewest(long, [msg("a", 10), msg("b", 20)], 2, start).messages.map((m) => m.id)).toEqual(["old", "a", "b", "live"]);
    // The page already holds it: once.
    expect(withNewest(now, [msg("a", 10), msg("live", 30)], 50, atStart).messages.map((m) => m.id)).toEqual(["a", "live"]);
    // Without the cache at the start nothing is taken for live: the page decides.
    expect(withNewest(now, page, 50).messages.map((m) => m.id)).toEqual(["a"]);
  });
});

describe("the chat list", () => {
  it("moves a chat with a new message to the top and counts it unread, unless it is one's own", () => {
    const list = [chat("c0", { lastMessage: msg("x", 50, "them", { chatId: "c0" }) }), chat("c1", { lastMessage: msg("a", 10) })];
    const theirs = chatsWithMessage(list, msg("b", 60), "me");
    expect(theirs.missing).toBe(false);
    expect(theirs.chats.map((c) => c.id)).toEqual(["c1", "c0"]);
    expect(theirs.chats[0]!.unread).toBe(1);
    expect(theirs.chats[0]!.lastMessage?.id).toBe("b");
    // The same message again (a replay, or the list refetched meanwhile): not counted twice.
    expect(chatsWithMessage(theirs.chats, msg("b", 60), "me").chats[0]!.unread).toBe(1);
    const mine = chatsWithMessage(theirs.chats, msg("c", 70, "me"), "me").chats[0]!;
    expect(mine.unread).toBe(0);
    expect(mine.lastRead).toBe(70);
    expect(chatsWithMessage(list, msg("z", 1, "them", { chatId: "nope" }), "me").missing).toBe(true);
  });

  it("moves read marks forward, and shows one's own messages read when another member read them", () => {
    const c = chat("c1", { lastMessage: msg("b", 20), unread: 2 });
    const read = chatWithRead(c, "them", 20, "me");
    expect(read.members.find((m) => m.id === "them")!.lastRead).toBe(20);
    expect(chatWithRead(read, "them", 5, "me").members.find((m) => m.id === "them")!.lastRead).toBe(20);
    expect(readByOthers(msg("mine", 20, "me"), read.members)).toBe(true);
    expect(readByOthers(msg("mine", 21, "me"), read.members)).toBe(false);
    // One's own mark (another tab read the chat): caught up.
    const mineRead = chatWithRead(c, "me", 20, "me");
    expect(mineRead.unread).toBe(0);
    expect(mineRead.lastRead).toBe(20);
  });

  it("names chats and badges", () => {
    expect(chatName(chat("c"), "me", "en")).toBe("Them");
    expect(chatName(chat("c", { title: "Planters" }), "me", "en")).toBe("Planters");
    expect(unreadLabel({ unread: 0, capped: false })).toBeNull();
    expect(unreadLabel({ unread: 7, capped: false })).toBe("7");
    expect(unreadLabel({ unread: 100, capped: true })).toBe("99+");
  });
});

describe("live chat events in the cache", () => {
  it("appends, edits, reacts, deletes and reads across the history and the list", () => {
    const qc = new QueryClient();
    const mk = messagesKey("s", "me", "c1");
    qc.setQueryData<MessageList>(mk, { messages: [msg("a", 10)], hasMore: false });
    qc.setQueryData<Chat[]>(chatsKey("s", "me"), [chat("c1", { lastMessage: msg("a", 10) })]);
    const list = () => qc.getQueryData<MessageList>(mk)!.messages;
    const chats = () => qc.getQueryData<Chat[]>(chatsKey("s", "me"))!;

    // The sender's own POST answer, then the same message live: once.
    applyMessage(qc, "s", msg("b", 20, "me"));
    const f = applyChatEvent(qc, "s", "chat.message", { chatId: "c1", message: msg("b", 20, "me") });
    expect(list().map((m) => m.id)).toEqual(["a", "b"]);
    expect(f).toEqual({ chats: false, unread: true });
    applyChatEvent(qc, "s", "chat.message", { chatId: "c1", message: msg("c", 30) });
    expect(chats()[0]!.unread).toBe(1);

    applyChatEvent(qc, "s", "chat.message.edited", { chatId: "c1", message: msg("c", 30, "them", { description: "new", editedAt: "2026-01-01T00:01:00Z" }) });
    expect(list()[2]!.description).toBe("new");
    expect(chats()[0]!.lastMessage?.description).toBe("new");

    applyChatEvent(qc, "s", "chat.reaction", { chatId: "c1", messageId: "b", reactions: [{ emoji: "👍", count: 1, profileIds: ["them"] }] });
    expect(list()[1]!.reactions[0]!.count).toBe(1);

    applyChatEvent(qc, "s", "chat.read", { chatId: "c1", profileId: "them", lastRead: 20 });
    expect(readByOthers(list()[1]!, chats()[0]!.members)).toBe(true);

    expect(applyChatEvent(qc, "s", "chat.message.deleted", { chatId: "c1", messageId: "c" })).toEqual({ chats: true, unread: true });
    expect(list().map((m) => m.id)).toEqual(["a", "b"]);

    // A chat not listed yet (started by someone else): the list is refetched.
    expect(applyChatEvent(qc, "s", "chat.message", { chatId: "c2", message: msg("z", 5, "them", { chatId: "c2" }) }).chats).toBe(true);
    expect(applyChatEvent(qc, "s", "chat.created", { chatId: "c2" }).chats).toBe(true);
  });
});

describe("the composer", () => {
  it("sends on Enter, keeps a new line on Shift+Enter, and clears after sending", async () => {
    const sent: string[] = [];
    render(<Composer pending={false} onSend={async (t) => (sent.push(t), true)} />);
    const box = screen.getByRole("textbox", { name: "Message" });
    await userEvent.type(box, "line one{Shift>}{Enter}{/Shift}line two");
    expect(sent).toEqual([]);
    expect(box).toHaveValue("line one\nline two");
    await userEvent.type(box, "{Enter}");
    expect(sent).toEqual(["line one\nline two"]);
    expect(box).toHaveValue("");
    await userEvent.type(box, "   {Enter}");
    expect(sent).toHaveLength(1);
  });

  it("clears as a message leaves: what is typed while it is on its way is kept and sent after it, in order", async () => {
    const sent: string[] = [];
    const answers: ((ok: boolean) => void)[] = [];
    const onSend = (t: string) =>
      new Promise<boolean>((resolve) => {
        sent.push(t);
        answers.push(resolve);
      });
    const { rerender } = render(<Composer pending={false} onSend={onSend} />);
    const box = screen.getByRole("textbox", { name: "Message" });
    await userEvent.type(box, "first{Enter}");
    expect(box).toHaveValue("");
    expect(sent).toEqual(["first"]);
    // As in the chat: the parent marks its send pending until the server answers.
    rerender(<Composer pending onSend={onSend} />);
    // The first is still on its way: the second is accepted, and waits for it.
    await userEvent.type(box, "second{Enter}");
    expect(box).toHaveValue("");
    expect(sent).toEqual(["first"]);
    await userEvent.type(box, "still typing");
    answers[0]?.(true);
    await vi.waitFor(() => expect(sent).toEqual(["first", "second"]));
    rerender(<Composer pending={false} onSend={onSend} />);
    // The first's answer did not wipe what is being typed.
    expect(box).toHaveValue("still typing");
    // A message that fails does not overwrite new words; into an empty box it comes back.
    answers[1]?.(false);
    await new Promise((settled) => setTimeout(settled, 20));
    expect(box).toHaveValue("still typing");
    await userEvent.clear(box);
    await userEvent.type(box, "third{Enter}");
    await vi.waitFor(() => expect(sent).toEqual(["first", "second", "third"]));
    answers[2]?.(false);
    await vi.waitFor(() => expect(box).toHaveValue("third"));
  });

  it("uploads attachments with progress, sends their ids (words optional), and drops a failed one", async () => {
    const sent: [string, string[]][] = [];
    let finish: (() => void) | undefined;
    const onUpload = (file: File, onProgress: (p: { loaded: number; total: number }) => void) =>
      file.name === "bad.png"
        ? Promise.reject(new Error("refused"))
        : new Promise<never>((resolve) => {
            onProgress({ loaded: 1, total: 2 });
            finish = () => resolve({ id: `id-${file.name}`, file: `/files/${file.name}` } as never);
          });
    render(<Composer pending={false} onSend={async (t, ids) => (sent.push([t, ids]), true)} onUpload={onUpload} />);
    const send = screen.getByRole("button", { name: "Send" });
    expect(send).toBeDisabled();
    await userEvent.upload(screen.getByLabelText("Attach files"), new File(["png"], "tree.png", { type: "image/png" }));
    const item = screen.getByTestId("attachment");
    expect(item).toHaveAttribute("data-ready", "false");
    expect(screen.getByLabelText("Uploading tree.png")).toHaveAttribute("value", "0.5");
    // Still uploading: nothing can be sent yet.
    expect(send).toBeDisabled();
    finish?.();
    await screen.findByText("tree.png");
    await vi.waitFor(() => expect(screen.getByTestId("attachment")).toHaveAttribute("data-ready", "true"));
    expect(send).toBeEnabled();
    await userEvent.upload(screen.getByLabelText("Attach files"), new File(["x"], "bad.png", { type: "image/png" }));
    await vi.waitFor(() => expect(screen.getAllByTestId("attachment")).toHaveLength(1));
    await userEvent.click(send);
    expect(sent).toEqual([["", ["id-tree.png"]]]);
    expect(screen.queryByTestId("attachment")).toBeNull();
  });
});
