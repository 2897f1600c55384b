import { useQuery } from "@tanstack/react-query";
import { request } from "@/api/http";
import { tr } from "@/lib/content";
import { useMe } from "@/account/session";

/**
 * The chats of the signed-in subject's profiles (crates/modules/social/src/chats.rs), under
 * `/api/rbac/subjects/{id}/social-module`. A subject chats under one of its profiles.
 */

export interface ProfileCard {
  id: string;
  slug?: string | null;
  adminTitle?: string | null;
  title?: Record<string, string> | null;
  variant?: string | null;
}

/** A member of a chat: its profile card and how far it has read (a message position). */
export interface Member extends ProfileCard {
  lastRead: number;
}

export interface Reaction {
  emoji: string;
  count: number;
  profileIds: string[];
}

export interface MessageFile {
  id: string;
  file: string | null;
  mimeType: string | null;
  size: number | null;
  adminTitle: string | null;
}

export interface Message {
  id: string;
  description: string;
  createdAt: string;
  editedAt: string | null;
  chatId: string;
  /** The message's place in its chat (microseconds; grows with time). */
  position: number;
  /** The author profile. */
  profileId: string | null;
  reactions: Reaction[];
  files: MessageFile[];
}

export interface Chat {
  id: string;
  title: string | null;
  createdAt: string;
  members: Member[];
  lastMessage: Message | null;
  /** Unread messages of the profile the chat was read through (capped at 100). */
  unread: number;
  /** That profile's read mark. */
  lastRead: number;
}

export interface Unread {
  unread: number;
  capped: boolean;
  chats: number;
  profileIds: string[];
}

export interface ReadMark {
  chatId: string;
  lastRead: number;
  unread: number;
}

/** Messages a page of history holds. */
export const PAGE = 50;

export const base = (subject: string) => `/api/rbac/subjects/${subject}/social-module`;
const chatsPath = (s: string, p: string) => `${base(s)}/profiles/${p}/chats`;
const messagesPath = (s: string, p: string, c: string) => `${chatsPath(s, p)}/${c}/messages`;

/** Query keys. Everything of a subject sits under `["social", subject]` (dropped at sign-out). */
export const socialKey = ["social"] as const;
export const profilesKey = (s: string) => ["social", s, "profiles"] as const;
export const unreadKey = (s: string) => ["social", s, "unread"] as const;
export const chatsKey = (s: string, p: string) => ["social", s, "chats", p] as const;
export const chatKey = (s: string, p: string, c: string) => ["social", s, "chat", p, c] as const;
export const messagesKey = (s: string, p: string, c: string) => ["social", s, "messages", p, c] as const;
export const directoryKey = (search: string) => ["social-directory", search] as const;

export const listProfiles = (s: string) => request<ProfileCard[]>("GET", `${base(s)}/profiles`);
export const createProfile = (s: string, title: string) => request<ProfileCard>("POST", `${base(s)}/profiles`, { body: { title } });
export const getUnread = (s: string) => request<Unread>("GET", `${base(s)}/unread`);
export const listChats = (s: string, p: string) => request<Chat[]>("GET", chatsPath(s, p));
export const getChat = (s: string, p: string, c: string) => request<Chat>("GET", `${chatsPath(s, p)}/${c}`);
export const startChat = (s: string, p: string, profileIds: string[]) => request<Chat>("POST", chatsPath(s, p), { body: { profileIds } });
export const getMessages = (s: string, p: string, c: string, q: { before?: string; after?: number; limit?: number } = {}) =>
  request<Message[]>("GET", messagesPath(s, p, c), { query: { limit: q.limit ?? PAGE, before: q.before, after: q.after } });
export const postMessage = (s: string, p: string, c: string, description: string) => request<Message>("POST", messagesPath(s, p, c), { body: { description } });
export const editMessage = (s: string, p: string, c: string, m: string, description: string) =>
  request<Message>("PATCH", `${messagesPath(s, p, c)}/${m}`, { body: { description } });
export const deleteMessage = (s: string, p: string, c: string, m: string) => request<unknown>("DELETE", `${messagesPath(s, p, c)}/${m}`);
export const react = (s: string, p: string, c: string, m: string, emoji: string) => request<Message>("POST", `${messagesPath(s, p, c)}/${m}/react`, { body: { emoji } });
export const markRead = (s: string, p: string, c: string, messageId?: string) =>
  request<ReadMark>("POST", `${chatsPath(s, p)}/${c}/read`, { body: messageId ? { messageId } : {} });

/** Other people's profiles (the public list), for starting a chat. */
export const searchProfiles = (search: string) =>
  request<ProfileCard[]>("GET", "/api/social/profiles", {
    query: { limit: 20, search: search.trim() || undefined, "orderBy[and][0][column]": "createdAt", "orderBy[and][0][method]": "desc" },
  });

/** A profile's name in `lang`: its title, else its admin title, else its slug. */
export function profileName(p: ProfileCard | null | undefined, lang: string): string {
  if (!p) return "";
  return tr(p.title, lang) || p.adminTitle || p.slug || p.id.slice(0, 8);
}

/** A chat's name for `me`: its title, else the other members' names. */
export function chatName(chat: Chat, me: string, lang: string): string {
  if (chat.title) return chat.title;
  const others = chat.members.filter((m) => m.id !== me);
  return (others.length ? others : chat.members).map((m) => profileName(m, lang)).join(", ");
}

/** The navbar badge: the count, "99+" past the server's cap, nothing at zero. */
export function unreadLabel(u: Pick<Unread, "unread" | "capped"> | null | undefined): string | null {
  if (!u || u.unread <= 0) return null;
  return u.capped || u.unread > 99 ? "99+" : String(u.unread);
}

/** Has any member other than the author read `m`? */
export function readByOthers(m: Message, members: Member[]): boolean {
  return members.some((x) => x.id !== m.profileId && x.lastRead >= m.position);
}

/** The signed-in subject's id (undefined while loading or signed out). */
export function useSubject(): string | undefined {
  return useMe().data?.id;
}

export function useProfiles(subject: string | undefined) {
  return useQuery({ queryKey: profilesKey(subject ?? ""), queryFn: () => listProfiles(subject as string), enabled: !!subject });
}

export function useUnread(subject: string | undefined) {
  return useQuery({ queryKey: unreadKey(subject ?? ""), queryFn: () => getUnread(subject as string), enabled: !!subject });
}

export function useChats(subject: string | undefined, profile: string | undefined) {
  return useQuery({
    queryKey: chatsKey(subject ?? "", profile ?? ""),
    queryFn: () => listChats(subject as string, profile as string),
    enabled: !!subject && !!profile,
  });
}
