import { useQuery } from "@tanstack/react-query";
import { api, loosely } from "@/api/client";
import type { components } from "@/api/schema";
import { tr } from "@/lib/content";
import { useMe } from "@/account/session";

/**
 * The chats of the signed-in subject's profiles (crates/modules/social/src/chats.rs), under
 * `/api/rbac/subjects/{id}/social-module`. A subject chats under one of its profiles.
 */

/**
 * A profile as the chat screens show it. Kept here: the document's SubjectSocialProfilesItem has
 * no `required` (not even `id`) and its `title` is a bare `{type: object}`; the public list's
 * SocialProfile (fully typed) fits it.
 */
export interface ProfileCard {
  id: string;
  slug?: string | null;
  adminTitle?: string | null;
  title?: components["schemas"]["Translations"] | null;
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

/** Kept here: the document describes a message only as `{type: object}` with a description. */
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

/** Kept here: the document describes a chat only as `{type: object}` with a description. */
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

/** Kept here: the document's SubjectSocialUnreadResult has no `required` and no `profileIds`. */
export interface Unread {
  unread: number;
  capped: boolean;
  chats: number;
  profileIds: string[];
}

/** Kept here: the document's SubjectSocialChatReadResult has no `required` and no `chatId`. */
export interface ReadMark {
  chatId: string;
  lastRead: number;
  unread: number;
}

/** Messages a page of history holds. */
export const PAGE = 50;

/** Query keys. Everything of a subject sits under `["social", subject]` (dropped at sign-out). */
export const socialKey = ["social"] as const;
export const profilesKey = (s: string) => ["social", s, "profiles"] as const;
export const unreadKey = (s: string) => ["social", s, "unread"] as const;
export const chatsKey = (s: string, p: string) => ["social", s, "chats", p] as const;
export const chatKey = (s: string, p: string, c: string) => ["social", s, "chat", p, c] as const;
export const messagesKey = (s: string, p: string, c: string) => ["social", s, "messages", p, c] as const;
export const directoryKey = (search: string) => ["social-directory", search] as const;

const SOCIAL = "/api/rbac/subjects/{id}/social-module";
const CHATS = `${SOCIAL}/profiles/{profileId}/chats` as const;
const MESSAGES = `${CHATS}/{chatId}/messages` as const;
const chatParams = (id: string, profileId: string, chatId: string) => ({ path: { id, profileId, chatId } });
const messageParams = (id: string, profileId: string, chatId: string, messageId: string) => ({ path: { id, profileId, chatId, messageId } });

export const listProfiles = async (s: string) => loosely<ProfileCard[]>(await api.get(`${SOCIAL}/profiles`, { params: { path: { id: s } } }));
export const createProfile = async (s: string, title: string) => loosely<ProfileCard>(await api.post(`${SOCIAL}/profiles`, { params: { path: { id: s } }, body: { title } }));
export const getUnread = async (s: string) => loosely<Unread>(await api.get(`${SOCIAL}/unread`, { params: { path: { id: s } } }));
export const listChats = async (s: string, p: string) => loosely<Chat[]>(await api.get(CHATS, { params: { path: { id: s, profileId: p } } }));
export const getChat = async (s: string, p: string, c: string) => loosely<Chat>(await api.get(`${CHATS}/{chatId}`, { params: chatParams(s, p, c) }));
export const startChat = async (s: string, p: string, profileIds: string[]) =>
  loosely<Chat>(await api.post(CHATS, { params: { path: { id: s, profileId: p } }, body: { profileIds } }));
export const getMessages = async (s: string, p: string, c: string, q: { before?: string; after?: number; limit?: number } = {}) =>
  loosely<Message[]>(await api.get(MESSAGES, { params: { ...chatParams(s, p, c), query: { limit: q.limit ?? PAGE, before: q.before, after: q.after } } }));
export const postMessage = async (s: string, p: string, c: string, description: string) =>
  loosely<Message>(await api.post(MESSAGES, { params: chatParams(s, p, c), body: { description } }));
export const editMessage = async (s: string, p: string, c: string, m: string, description: string) =>
  loosely<Message>(await api.patch(`${MESSAGES}/{messageId}`, { params: messageParams(s, p, c, m), body: { description } }));
export const deleteMessage = (s: string, p: string, c: string, m: string) => api.delete(`${MESSAGES}/{messageId}`, { params: messageParams(s, p, c, m) });
export const react = async (s: string, p: string, c: string, m: string, emoji: string) =>
  loosely<Message>(await api.post(`${MESSAGES}/{messageId}/react`, { params: messageParams(s, p, c, m), body: { emoji } }));
export const markRead = async (s: string, p: string, c: string, messageId?: string) =>
  loosely<ReadMark>(await api.post(`${CHATS}/{chatId}/read`, { params: chatParams(s, p, c), body: messageId ? { messageId } : {} }));

/** Other people's profiles (the public list), for starting a chat. */
export const searchProfiles = (search: string): Promise<ProfileCard[]> =>
  api.get("/api/social/profiles", {
    params: { query: { limit: 20, search: search.trim() || undefined, orderBy: JSON.stringify([{ column: "createdAt", method: "desc" }]) } },
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
