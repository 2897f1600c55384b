import type { QueryClient } from "@tanstack/react-query";
import type { Chat, Message, ReadMark, Reaction } from "./api";
import { chatKey, chatsKey } from "./api";

/**
 * The chat caches and how a change (a live event, or the answer to one's own write) lands in
 * them. A chat's loaded history is one list, oldest first; events and answers are merged by id,
 * so a message the sender gets twice (its POST's answer and the live event) shows once.
 */

/** A chat's loaded messages, oldest first, and whether older ones remain on the server. */
export interface MessageList {
  messages: Message[];
  hasMore: boolean;
}

const order = (a: Message, b: Message) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** `list` with `incoming` added or replaced by id, in order. */
export function mergeMessages(list: MessageList, incoming: readonly Message[]): MessageList {
  if (incoming.length === 0) return list;
  const byId = new Map(list.messages.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  return { ...list, messages: [...byId.values()].sort(order) };
}

/** `list` without the message `id`. */
export function removeMessage(list: MessageList, id: string): MessageList {
  return list.messages.some((m) => m.id === id) ? { ...list, messages: list.messages.filter((m) => m.id !== id) } : list;
}

/** `list` with new reactions on the message `id`. */
export function setReactions(list: MessageList, id: string, reactions: Reaction[]): MessageList {
  return list.messages.some((m) => m.id === id) ? { ...list, messages: list.messages.map((m) => (m.id === id ? { ...m, reactions } : m)) } : list;
}

/** `list` with a page of older history in front. */
export function prependOlder(list: MessageList, older: readonly Message[], limit: number): MessageList {
  return { ...mergeMessages(list, older), hasMore: older.length >= limit };
}

/**
 * The newest `page` of a chat (a refetch) over what is cached now: older history that was loaded
 * stays (when the page is full, so the history goes on before it); the page replaces the range it
 * covers, so an edit or a deletion there shows. `atStart` is the cache when the request left:
 * a message cached since then came by a live event while the request was out, and stays when it
 * is newer than the page (the server read the page before that message was written).
 */
export function withNewest(old: MessageList | undefined, page: readonly Message[], limit: number, atStart?: MessageList): MessageList {
  const full = page.length >= limit;
  const newest = page.at(-1)?.position ?? -Infinity;
  const before = atStart && new Set(atStart.messages.map((m) => m.id));
  const arrived = before ? (old?.messages ?? []).filter((m) => !before.has(m.id) && m.position > newest) : [];
  if (!old || !full || page.length === 0) return { messages: [...page, ...arrived].sort(order), hasMore: full };
  const first = page[0]!.position;
  const kept = old.messages.filter((m) => m.position < first);
  return { messages: [...kept, ...page, ...arrived].sort(order), hasMore: kept.length ? old.hasMore : true };
}

/** When a chat was last active (its newest message, else its start), for the list's order. */
function activity(c: Chat): [number, string] {
  return [c.lastMessage?.position ?? 0, c.createdAt ?? ""];
}

/** Chats, most recently active first (as the server sends them). */
export function sortChats(chats: Chat[]): Chat[] {
  return [...chats].sort((a, b) => {
    const [pa, ca] = activity(a);
    const [pb, cb] = activity(b);
    return pb - pa || (cb > ca ? 1 : cb < ca ? -1 : 0);
  });
}

/**
 * A chat, seen through `profile`, after the message `m` arrived or changed: the newest message,
 * and the unread count (one more for someone else's new message; none after one's own, which
 * reads the chat up to it).
 */
export function chatWithMessage(chat: Chat, m: Message, profile: string): Chat {
  const last = chat.lastMessage;
  if (last && last.id === m.id) return { ...chat, lastMessage: m };
  if (last && m.position < last.position) return chat;
  if (m.profileId === profile) {
    const lastRead = Math.max(chat.lastRead, m.position);
    return { ...chat, lastMessage: m, lastRead, unread: 0, members: chat.members.map((x) => (x.id === profile ? { ...x, lastRead: Math.max(x.lastRead, m.position) } : x)) };
  }
  const unread = m.position > chat.lastRead ? Math.min(chat.unread + 1, 100) : chat.unread;
  return { ...chat, lastMessage: m, unread };
}

/** The chat list after `m` arrived: the chat updated and moved by activity; `missing` when the chat is not listed. */
export function chatsWithMessage(chats: Chat[], m: Message, profile: string): { chats: Chat[]; missing: boolean } {
  const i = chats.findIndex((c) => c.id === m.chatId);
  if (i < 0) return { chats, missing: true };
  const next = chats.slice();
  next[i] = chatWithMessage(chats[i]!, m, profile);
  return { chats: sortChats(next), missing: false };
}

/** A chat after `member` read up to `lastRead` (read as `profile`: its own mark and unread too). */
export function chatWithRead(chat: Chat, member: string, lastRead: number, profile: string, unread?: number): Chat {
  const members = chat.members.map((x) => (x.id === member && lastRead > x.lastRead ? { ...x, lastRead } : x));
  if (member !== profile) return { ...chat, members };
  const mark = Math.max(chat.lastRead, lastRead);
  const caughtUp = !chat.lastMessage || chat.lastMessage.position <= mark;
  return { ...chat, members, lastRead: mark, unread: unread ?? (caughtUp ? 0 : chat.unread) };
}

/** What the caller should refetch after an event was applied. */
export interface Followup {
  chats: boolean;
  unread: boolean;
}

/** Every cached query of `subject` whose key starts with `kind` and names `chatId` (any profile). */
function cachedFor(qc: QueryClient, subject: string, kind: "messages" | "chat" | "chats", chatId?: string) {
  return qc
    .getQueryCache()
    .findAll({ queryKey: ["social", subject, kind] })
    .filter((q) => chatId === undefined || kind === "chats" || q.queryKey[4] === chatId);
}

function updateMessages(qc: QueryClient, subject: string, chatId: string, fn: (l: MessageList) => MessageList) {
  for (const q of cachedFor(qc, subject, "messages", chatId)) {
    qc.setQueryData<MessageList>(q.queryKey, (l) => (l ? fn(l) : l));
  }
}

/** Applies `fn` to the chat `chatId` in every cached list and single chat of `subject` (`profile` is the key's). */
function updateChats(qc: QueryClient, subject: string, chatId: string, fn: (c: Chat, profile: string) => Chat, reorder = false): boolean {
  let missing = false;
  for (const q of cachedFor(qc, subject, "chats")) {
    const profile = String(q.queryKey[3]);
    qc.setQueryData<Chat[]>(q.queryKey, (list) => {
      if (!list) return list;
      if (!list.some((c) => c.id === chatId)) {
        missing = true;
        return list;
      }
      const next = list.map((c) => (c.id === chatId ? fn(c, profile) : c));
      return reorder ? sortChats(next) : next;
    });
  }
  for (const q of cachedFor(qc, subject, "chat", chatId)) {
    const profile = String(q.queryKey[3]);
    qc.setQueryData<Chat>(q.queryKey, (c) => (c ? fn(c, profile) : c));
  }
  return missing;
}

/** A message that arrived or changed (live, or the answer to one's own post or edit). */
export function applyMessage(qc: QueryClient, subject: string, m: Message): Followup {
  updateMessages(qc, subject, m.chatId, (l) => mergeMessages(l, [m]));
  const missing = updateChats(qc, subject, m.chatId, (c, profile) => chatWithMessage(c, m, profile), true);
  return { chats: missing, unread: true };
}

/** A read mark that moved (live, or the answer to one's own `read`). */
export function applyRead(qc: QueryClient, subject: string, chatId: string, member: string, lastRead: number, unread?: number): Followup {
  const missing = updateChats(qc, subject, chatId, (c, profile) => chatWithRead(c, member, lastRead, profile, member === profile ? unread : undefined));
  return { chats: missing, unread: true };
}

/** The answer to one's own `read`. */
export function applyReadMark(qc: QueryClient, subject: string, profile: string, mark: ReadMark): Followup {
  return applyRead(qc, subject, mark.chatId, profile, mark.lastRead, mark.unread);
}

/** A message deleted: gone from the history; the lists' newest message may be stale. */
export function applyDeleted(qc: QueryClient, subject: string, chatId: string, messageId: string): Followup {
  updateMessages(qc, subject, chatId, (l) => removeMessage(l, messageId));
  let stale = false;
  for (const q of cachedFor(qc, subject, "chats")) {
    const list = qc.getQueryData<Chat[]>(q.queryKey);
    if (list?.some((c) => c.id === chatId && c.lastMessage?.id === messageId)) stale = true;
  }
  return { chats: stale, unread: true };
}

/** Reactions changed on a message. */
export function applyReactions(qc: QueryClient, subject: string, chatId: string, messageId: string, reactions: Reaction[]): Followup {
  updateMessages(qc, subject, chatId, (l) => setReactions(l, messageId, reactions));
  updateChats(qc, subject, chatId, (c) => (c.lastMessage?.id === messageId ? { ...c, lastMessage: { ...c.lastMessage, reactions } } : c));
  return { chats: false, unread: false };
}

/** A live `chat.*` event into the caches of `subject`: what to refetch after. */
export function applyChatEvent(qc: QueryClient, subject: string, type: string, data: unknown): Followup {
  const d = (data ?? {}) as Record<string, unknown>;
  const chatId = typeof d.chatId === "string" ? d.chatId : "";
  switch (type) {
    case "chat.message":
    case "chat.message.edited":
      return d.message && typeof d.message === "object" ? applyMessage(qc, subject, d.message as Message) : { chats: true, unread: true };
    case "chat.message.deleted":
      return typeof d.messageId === "string" ? applyDeleted(qc, subject, chatId, d.messageId) : { chats: true, unread: true };
    case "chat.reaction":
      return typeof d.messageId === "string" && Array.isArray(d.reactions) ? applyReactions(qc, subject, chatId, d.messageId, d.reactions as Reaction[]) : { chats: false, unread: false };
    case "chat.read":
      return typeof d.profileId === "string" && typeof d.lastRead === "number" ? applyRead(qc, subject, chatId, d.profileId, d.lastRead) : { chats: true, unread: true };
    case "chat.created":
      return { chats: true, unread: false };
    default:
      return { chats: false, unread: false };
  }
}

/** After starting a chat: in the list at once (the server's answer is the chat as `profile` sees it). */
export function applyStarted(qc: QueryClient, subject: string, profile: string, chat: Chat): void {
  qc.setQueryData<Chat[]>(chatsKey(subject, profile), (list) => (list ? sortChats([chat, ...list.filter((c) => c.id !== chat.id)]) : list));
  qc.setQueryData(chatKey(subject, profile, chat.id), chat);
}

