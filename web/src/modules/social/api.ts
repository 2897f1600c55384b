import { useQuery } from "@tanstack/react-query";
import { api } from "@/api/client";
import type { components } from "@/api/schema";
import { tr } from "@/site/content";
import { useMe } from "@/lib/session";
import { multipartBody, upload, type UploadProgress } from "@/api/upload";

/**
 * The chats of the signed-in subject's profiles (crates/modules/social/src/chats.rs), under
 * `/api/rbac/subjects/{id}/social-module`. A subject chats under one of its profiles.
 */

type Schemas = components["schemas"];

/** A profile as the chat screens show it (the public list's SocialProfile fits it too). */
export type ProfileCard = Schemas["SocialProfileCard"];

/** A chat with its members, newest message and what the profile has not read. */
export type Chat = Schemas["SocialChatView"];

/** A member of a chat: its profile card and how far it has read (a message position). */
export type Member = Chat["members"][number];

/** A message with its place in the chat (`position`, grows with time), author profile, reactions and files. */
export type Message = Schemas["SocialChatMessage"];

export type Reaction = Message["reactions"][number];

export type MessageFile = Message["files"][number];

/** The navbar badge's counts over all the subject's chats. */
export type Unread = Schemas["SubjectSocialUnreadResult"];

/** A chat's read mark after `read`. */
export type ReadMark = Schemas["SubjectSocialChatReadResult"];

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

export const listProfiles = (s: string): Promise<ProfileCard[]> => api.get(`${SOCIAL}/profiles`, { params: { path: { id: s } } });
export const createProfile = (s: string, title: string): Promise<ProfileCard> => api.post(`${SOCIAL}/profiles`, { params: { path: { id: s } }, body: { title } });
export const getUnread = (s: string): Promise<Unread> => api.get(`${SOCIAL}/unread`, { params: { path: { id: s } } });
export const listChats = (s: string, p: string): Promise<Chat[]> => api.get(CHATS, { params: { path: { id: s, profileId: p } } });
export const getChat = (s: string, p: string, c: string): Promise<Chat> => api.get(`${CHATS}/{chatId}`, { params: chatParams(s, p, c) });
export const startChat = (s: string, p: string, profileIds: string[]): Promise<Chat> =>
  api.post(CHATS, { params: { path: { id: s, profileId: p } }, body: { profileIds } });
export const getMessages = (s: string, p: string, c: string, q: { before?: string; after?: number; limit?: number } = {}): Promise<Message[]> =>
  api.get(MESSAGES, { params: { ...chatParams(s, p, c), query: { limit: q.limit ?? PAGE, before: q.before, after: q.after } } });
export const postMessage = (s: string, p: string, c: string, description: string, fileIds: string[] = []): Promise<Message> =>
  api.post(MESSAGES, { params: chatParams(s, p, c), body: fileIds.length ? { description, fileIds } : { description } });

/** A file uploaded to attach to a message (kept hidden: only the chats it is sent to show it). */
export type Upload = Schemas["FileStorageFile"];

/** Uploads `file` as an attachment of profile `p`, reporting progress. */
export const uploadAttachment = (s: string, p: string, file: File, onProgress?: (p: UploadProgress) => void, signal?: AbortSignal): Promise<Upload> =>
  upload<Upload>("POST", `/api/rbac/subjects/${encodeURIComponent(s)}/social-module/profiles/${encodeURIComponent(p)}/files`, multipartBody({}, { file }), { onProgress, signal });

/** Shows as a picture (a thumbnail made by the server); SVG and other types show as links. */
export function isPicture(f: Pick<MessageFile, "mimeType">): boolean {
  return /^image\/(png|jpeg|webp|gif)$/.test(f.mimeType ?? "");
}
export const editMessage = (s: string, p: string, c: string, m: string, description: string): Promise<Message> =>
  api.patch(`${MESSAGES}/{messageId}`, { params: messageParams(s, p, c, m), body: { description } });
export const deleteMessage = (s: string, p: string, c: string, m: string) => api.delete(`${MESSAGES}/{messageId}`, { params: messageParams(s, p, c, m) });
export const react = (s: string, p: string, c: string, m: string, emoji: string): Promise<Message> =>
  api.post(`${MESSAGES}/{messageId}/react`, { params: messageParams(s, p, c, m), body: { emoji } });
export const markRead = (s: string, p: string, c: string, messageId?: string): Promise<ReadMark> =>
  api.post(`${CHATS}/{chatId}/read`, { params: chatParams(s, p, c), body: messageId ? { messageId } : {} });

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
