import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, Check, CheckCheck, MessageCircle, Paperclip, Pencil, Plus, Send, SmilePlus, Trash2, X } from "lucide-react";
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "@/i18n";
import { Link, useParams, useSearchParams } from "react-router";
import { toast } from "sonner";
import { AuthGate, GateSkeleton } from "@/site/gate";
import { isSignedIn, useMe } from "@/lib/session";
import { fileUrl } from "@/site/content";
import { errorMessage } from "@/lib/form-errors";
import { fraction, UPLOAD_ACCEPT, type UploadProgress } from "@/api/upload";
import { AUTH_PATH, signInHref, siteLink } from "@/site/link";
import { cn } from "@/ui/cn";
import { Button } from "@/ui/button";
import { ConfirmDialog, Dialog, DialogContent, DialogTrigger } from "@/ui/dialog";
import { Dropdown, DropdownContent, DropdownItem, DropdownTrigger } from "@/ui/dropdown";
import { Input, Label } from "@/ui/input";
import {
  type Chat,
  chatKey,
  chatName,
  createProfile,
  deleteMessage,
  directoryKey,
  editMessage,
  getChat,
  getMessages,
  isPicture,
  markRead,
  type Message,
  messagesKey,
  PAGE,
  postMessage,
  profileName,
  profilesKey,
  type ProfileCard,
  react,
  readByOthers,
  searchProfiles,
  startChat,
  unreadKey,
  unreadLabel,
  type Upload,
  uploadAttachment,
  useChats,
  useProfiles,
  useUnread,
} from "./api";
import { applyDeleted, applyMessage, applyReadMark, applyStarted, type Followup, type MessageList, prependOlder, withNewest } from "./cache";

/** Reactions offered on a message. */
export const EMOJI = ["👍", "❤️", "😂", "🎉", "😮", "😢"] as const;

/** Refetches what an applied change says is stale. */
function useFollow(subject: string) {
  const qc = useQueryClient();
  return useCallback(
    (f: Followup) => {
      if (f.chats) void qc.invalidateQueries({ queryKey: ["social", subject, "chats"] });
      if (f.unread) void qc.invalidateQueries({ queryKey: unreadKey(subject) });
    },
    [qc, subject],
  );
}

function timeOf(iso: string, lang: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const today = new Date().toDateString() === d.toDateString();
  return new Intl.DateTimeFormat(lang === "ru" ? "ru-RU" : "en-GB", today ? { hour: "2-digit", minute: "2-digit" } : { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }).format(d);
}

function initials(name: string): string {
  return (
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]?.toUpperCase())
      .join("") || "?"
  );
}

function Avatar({ name }: { name: string }) {
  return (
    <span aria-hidden className="inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-emerald-100 text-sm font-semibold text-emerald-900">
      {initials(name)}
    </span>
  );
}

/** 'Chats' in the navbar, with the unread count: for a signed-in subject only. */
export function ChatButton() {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const me = useMe();
  const unread = useUnread(me.data?.id);
  const label = unreadLabel(unread.data);
  if (!me.data?.id) return null;
  return (
    <Link
      to={siteLink("/social/chats", lang)}
      data-testid="chat-button"
      title={t("chat.chats")}
      className="relative inline-flex h-10 min-w-10 items-center justify-center gap-1.5 rounded-full border border-emerald-800 px-2.5 text-sm font-semibold text-emerald-900"
    >
      <MessageCircle aria-hidden className="h-5 w-5" />
      <span className="sr-only">{t("chat.chats")}</span>
      {label ? (
        <span data-testid="chat-badge" className="rounded-full bg-emerald-800 px-2 text-xs text-white">
          {label}
          <span className="sr-only"> {t("chat.unreadWord")}</span>
        </span>
      ) : null}
    </Link>
  );
}

export function SignInPrompt() {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const back = typeof window === "undefined" ? "" : window.location.pathname + window.location.search;
  return (
    <div className="rounded-2xl border border-neutral-200 p-6" data-testid="chat-sign-in">
      <p>{t("chat.signIn")}</p>
      <Link to={back ? signInHref(lang, back) : siteLink(`${AUTH_PATH}/select-method`, lang)} className="mt-3 inline-flex h-10 items-center rounded-full bg-emerald-800 px-5 font-semibold text-white">
        {t("chat.login")}
      </Link>
    </div>
  );
}

/** A name to chat under (the subject's first profile, or another of at most 5). */
export function CreateProfileForm({ subject, title, text }: { subject: string; title?: string; text?: string }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const id = useId();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => createProfile(subject, name.trim()),
    onSuccess: (p) => {
      qc.setQueryData<ProfileCard[]>(profilesKey(subject), (list) => [...(list ?? []), p]);
      void qc.invalidateQueries({ queryKey: profilesKey(subject) });
      toast.success(t("chat.profileCreated"));
      setName("");
    },
    onError: (e) => toast.error(errorMessage(e, t, t("chat.failed"))),
  });
  return (
    <form
      className="grid max-w-md gap-3 rounded-2xl border border-neutral-200 p-6"
      data-testid="create-profile"
      aria-labelledby={`${id}-h`}
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) create.mutate();
      }}
    >
      <h2 id={`${id}-h`} className="text-lg font-semibold">
        {title ?? t("chat.noProfile")}
      </h2>
      <p className="text-sm text-neutral-600">{text ?? t("chat.noProfileText")}</p>
      <div className="grid gap-1.5">
        <Label htmlFor={`${id}-n`}>{t("chat.profileName")}</Label>
        <Input id={`${id}-n`} value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
      </div>
      <Button type="submit" disabled={create.isPending || !name.trim()}>
        {create.isPending ? t("chat.creating") : t("chat.createProfile")}
      </Button>
    </form>
  );
}

/** Search the public profiles and start (or reopen) a chat with one. */
function NewChatDialog({ subject, profile, own, onStarted }: { subject: string; profile: string; own: string[]; onStarted: (chat: Chat) => void }) {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const qc = useQueryClient();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const [term, setTerm] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setTerm(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  const found = useQuery({ queryKey: directoryKey(term), queryFn: () => searchProfiles(term), enabled: open });
  const others = (found.data ?? []).filter((p) => !own.includes(p.id));
  const start = useMutation({
    mutationFn: (other: string) => startChat(subject, profile, [other]),
    onSuccess: (chat) => {
      applyStarted(qc, subject, profile, chat);
      setOpen(false);
      setSearch("");
      onStarted(chat);
    },
    onError: (e) => toast.error(errorMessage(e, t, t("chat.failed"))),
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm" data-testid="new-chat">
          <Plus aria-hidden className="h-4 w-4" />
          {t("chat.newChat")}
        </Button>
      </DialogTrigger>
      <DialogContent title={t("chat.newChat")} description={t("chat.newChatDescription")} className="max-w-md">
        <div className="grid gap-3">
          <Label htmlFor={`${id}-s`} className="sr-only">
            {t("chat.searchProfiles")}
          </Label>
          <Input id={`${id}-s`} type="search" placeholder={t("chat.searchProfiles")} value={search} onChange={(e) => setSearch(e.target.value)} />
          {found.isPending ? <p className="text-sm text-neutral-600">{t("chat.loading")}</p> : null}
          {found.isSuccess && others.length === 0 ? <p className="text-sm text-neutral-600">{t("chat.noProfiles")}</p> : null}
          <ul className="grid gap-1">
            {others.map((p) => {
              const name = profileName(p, lang);
              return (
                <li key={p.id}>
                  <button
                    type="button"
                    disabled={start.isPending}
                    onClick={() => start.mutate(p.id)}
                    aria-label={t("chat.start", { name })}
                    className="flex w-full items-center gap-3 rounded-lg p-2 text-left hover:bg-muted disabled:opacity-60"
                  >
                    <Avatar name={name} />
                    <span className="font-medium">{name}</span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      </DialogContent>
    </Dialog>
  );
}

function ChatListItem({ chat, profile, selected, onSelect }: { chat: Chat; profile: string; selected: boolean; onSelect: () => void }) {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const name = chatName(chat, profile, lang);
  const last = chat.lastMessage;
  const author = last ? (last.profileId === profile ? t("chat.you") : profileName(chat.members.find((m) => m.id === last.profileId), lang)) : "";
  return (
    <li>
      <button
        type="button"
        onClick={onSelect}
        data-testid="chat-item"
        aria-current={selected ? "true" : undefined}
        className={cn("flex w-full items-center gap-3 border-b border-neutral-100 px-4 py-3 text-left hover:bg-emerald-50", selected && "bg-emerald-50")}
      >
        <Avatar name={name} />
        <span className="min-w-0 flex-1">
          <span className="flex items-baseline justify-between gap-2">
            <span className="truncate font-semibold">{name}</span>
            {last ? <time className="shrink-0 text-xs text-neutral-600" dateTime={last.createdAt}>{timeOf(last.createdAt, lang)}</time> : null}
          </span>
          <span className="flex items-center justify-between gap-2">
            <span className="truncate text-sm text-neutral-700" data-testid="chat-last-message">
              {last ? `${author}: ${last.description ?? ""}` : t("chat.noMessages")}
            </span>
            {chat.unread > 0 ? (
              <span data-testid="chat-unread" className="shrink-0 rounded-full bg-emerald-800 px-2 text-xs font-semibold text-white">
                <span className="sr-only">{t("chat.unread", { count: chat.unread })}</span>
                <span aria-hidden>{chat.unread >= 100 ? "99+" : chat.unread}</span>
              </span>
            ) : null}
          </span>
        </span>
      </button>
    </li>
  );
}

function Reactions({ m, profile, onToggle }: { m: Message; profile: string; onToggle: (emoji: string) => void }) {
  const { t } = useTranslation();
  if (m.reactions.length === 0) return null;
  return (
    <div className="mt-1 flex flex-wrap gap-1" data-testid="reactions">
      {m.reactions.map((r) => {
        const mine = r.profileIds.includes(profile);
        return (
          <button
            key={r.emoji}
            type="button"
            aria-pressed={mine}
            aria-label={t("chat.reaction", { emoji: r.emoji, count: r.count })}
            onClick={() => onToggle(r.emoji)}
            className={cn("rounded-full border px-2 py-0.5 text-xs", mine ? "border-emerald-800 bg-emerald-50 text-emerald-950" : "border-neutral-300 bg-white text-neutral-800")}
          >
            {r.emoji} {r.count}
          </button>
        );
      })}
    </div>
  );
}

function EditForm({ initial, onSave, onCancel, pending }: { initial: string; onSave: (text: string) => void; onCancel: () => void; pending: boolean }) {
  const { t } = useTranslation();
  const id = useId();
  const [text, setText] = useState(initial);
  const save = () => {
    const v = text.trim();
    if (!v) return;
    if (v === initial.trim()) onCancel();
    else onSave(v);
  };
  return (
    <form
      className="grid gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <label htmlFor={id} className="sr-only">
        {t("chat.editMessage")}
      </label>
      <textarea
        id={id}
        // oxlint-disable-next-line jsx-a11y/no-autofocus -- the user just asked to edit this message
        autoFocus
        value={text}
        maxLength={4000}
        rows={Math.min(6, Math.max(2, text.split("\n").length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
          else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            save();
          }
        }}
        className="w-full min-w-[14rem] rounded-md border border-neutral-300 bg-white p-2 text-sm text-neutral-900"
      />
      <div className="flex justify-end gap-2">
        <Button size="sm" variant="outline" onClick={onCancel}>
          {t("chat.cancel")}
        </Button>
        <Button size="sm" type="submit" disabled={pending || !text.trim()}>
          {t("chat.save")}
        </Button>
      </div>
    </form>
  );
}

interface MessageActions {
  onReact: (m: Message, emoji: string) => void;
  onEdit: (m: Message, text: string) => Promise<boolean>;
  onDelete: (m: Message) => void;
}

function MessageItem({ m, chat, profile, showAuthor, actions }: { m: Message; chat: Chat | undefined; profile: string; showAuthor: boolean; actions: MessageActions }) {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const [editing, setEditing] = useState(false);
  const [saving, setSaving] = useState(false);
  const mine = m.profileId === profile;
  const read = mine && chat ? readByOthers(m, chat.members) : false;
  const author = profileName(chat?.members.find((x) => x.id === m.profileId), lang);
  return (
    <li data-testid="message" data-id={m.id} data-mine={mine} className={cn("group flex max-w-[85%] flex-col", mine ? "items-end self-end" : "items-start self-start")}>
      {showAuthor && !mine ? <span className="mb-0.5 px-1 text-xs font-semibold text-neutral-700">{author}</span> : null}
      <div className={cn("rounded-2xl px-3 py-2", mine ? "rounded-br-sm bg-emerald-800 text-white" : "rounded-bl-sm bg-neutral-100 text-neutral-900")}>
        {editing ? (
          <EditForm
            initial={m.description ?? ""}
            pending={saving}
            onCancel={() => setEditing(false)}
            onSave={(text) => {
              setSaving(true);
              void actions.onEdit(m, text).then((ok) => {
                setSaving(false);
                if (ok) setEditing(false);
              });
            }}
          />
        ) : (
          <p className="whitespace-pre-wrap break-words" data-testid="message-text">
            {m.description}
          </p>
        )}
        {m.files.length ? (
          <ul className="mt-1 grid gap-1 text-sm" data-testid="message-files">
            {m.files.map((f) => {
              const url = fileUrl({ id: f.id, file: f.file });
              const name = f.adminTitle || t("chat.file");
              return (
                <li key={f.id}>
                  <a href={url} target="_blank" rel="noopener noreferrer" className="underline">
                    {isPicture(f) ? <img src={`${url}?w=256`} alt={name} loading="lazy" decoding="async" className="max-h-48 max-w-full rounded-lg" /> : name}
                  </a>
                </li>
              );
            })}
          </ul>
        ) : null}
        <span className={cn("mt-0.5 flex items-center justify-end gap-1 text-[0.7rem]", mine ? "text-emerald-50" : "text-neutral-600")}>
          {m.editedAt ? <span data-testid="edited">{t("chat.edited")}</span> : null}
          <time dateTime={m.createdAt}>{timeOf(m.createdAt, lang)}</time>
          {mine ? (
            <span data-testid="read-state" data-read={read} title={read ? t("chat.read") : t("chat.delivered")}>
              {read ? <CheckCheck aria-hidden className="h-3.5 w-3.5" /> : <Check aria-hidden className="h-3.5 w-3.5" />}
              <span className="sr-only">{read ? t("chat.read") : t("chat.delivered")}</span>
            </span>
          ) : null}
        </span>
      </div>
      <Reactions m={m} profile={profile} onToggle={(emoji) => actions.onReact(m, emoji)} />
      {!editing ? (
        <div className="mt-0.5 flex gap-0.5 text-neutral-600">
          <Dropdown modal={false}>
            <DropdownTrigger asChild>
              <button type="button" aria-label={t("chat.react")} className="rounded p-1 hover:bg-muted hover:text-neutral-900">
                <SmilePlus aria-hidden className="h-4 w-4" />
              </button>
            </DropdownTrigger>
            <DropdownContent align={mine ? "end" : "start"} className="flex min-w-0 gap-1 p-1">
              {EMOJI.map((e) => (
                <DropdownItem key={e} className="px-1.5 text-lg" onSelect={() => actions.onReact(m, e)}>
                  {e}
                </DropdownItem>
              ))}
            </DropdownContent>
          </Dropdown>
          {mine ? (
            <>
              <button type="button" aria-label={t("chat.edit")} onClick={() => setEditing(true)} className="rounded p-1 hover:bg-muted hover:text-neutral-900">
                <Pencil aria-hidden className="h-4 w-4" />
              </button>
              <button type="button" aria-label={t("chat.delete")} onClick={() => actions.onDelete(m)} className="rounded p-1 hover:bg-muted hover:text-red-700">
                <Trash2 aria-hidden className="h-4 w-4" />
              </button>
            </>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/** A file being attached in the composer: uploading (with its progress) or kept (with its row). */
interface Attaching {
  key: string;
  name: string;
  /** Share sent, 0–1 (null when the size is unknown). */
  progress: number | null;
  file?: Upload;
}

/** Most files one message carries (the server's MAX_FILES). */
export const MAX_ATTACHMENTS = 10;

export function Composer({
  onSend,
  pending,
  onUpload,
}: {
  onSend: (text: string, fileIds: string[]) => Promise<boolean>;
  pending: boolean;
  /** Uploads one attachment; without it the composer takes text only. */
  onUpload?: (file: File, onProgress: (p: UploadProgress) => void) => Promise<Upload>;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [text, setText] = useState("");
  const [files, setFiles] = useState<Attaching[]>([]);
  const picker = useRef<HTMLInputElement>(null);
  const uploading = files.some((f) => !f.file);
  const ready = files.flatMap((f) => (f.file ? [f.file.id] : []));
  // Sends wait for the one before them, so messages keep the order they were written in.
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const canSend = !uploading && (text.trim().length > 0 || ready.length > 0);
  // The box is cleared as the message leaves, so what is typed next while it is on its way is
  // neither refused nor wiped when the server answers. A message that fails comes back into the
  // box (with its files) unless something new has been written there meanwhile; the toast says why.
  const submit = () => {
    if (!canSend) return;
    const body = text.trim();
    const ids = ready;
    const kept = files;
    setText("");
    setFiles([]);
    queue.current = queue.current
      .then(() => onSend(body, ids))
      .catch(() => false)
      .then((ok) => {
        if (ok) return;
        setText((now) => (now === "" ? body : now));
        setFiles((now) => (now.length === 0 ? kept : now));
      });
  };
  const attach = (list: FileList | null) => {
    if (!list || !onUpload) return;
    const room = MAX_ATTACHMENTS - files.length;
    const chosen = Array.from(list).slice(0, Math.max(0, room));
    if (list.length > chosen.length) toast.error(t("chat.tooManyFiles", { count: MAX_ATTACHMENTS }));
    for (const file of chosen) {
      const key = `${file.name}-${file.size}-${Math.random().toString(36).slice(2)}`;
      setFiles((fs) => [...fs, { key, name: file.name, progress: 0 }]);
      onUpload(file, (p) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, progress: fraction(p) } : f)))).then(
        (row) => setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, progress: 1, file: row } : f))),
        (e: unknown) => {
          setFiles((fs) => fs.filter((f) => f.key !== key));
          toast.error(errorMessage(e, t, t("chat.uploadFailed", { name: file.name })));
        },
      );
    }
    if (picker.current) picker.current.value = "";
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <form
      className="border-t border-neutral-200 p-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        submit();
      }}
    >
      {files.length ? (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label={t("chat.attachments")} data-testid="attachments">
          {files.map((f) => (
            <li key={f.key} className="flex max-w-56 items-center gap-1 rounded-lg border border-neutral-300 bg-neutral-50 px-2 py-1 text-xs" data-testid="attachment" data-ready={!!f.file}>
              <Paperclip aria-hidden className="h-3.5 w-3.5 shrink-0" />
              <span className="truncate">{f.name}</span>
              {f.file ? null : (
                <progress className="h-1.5 w-12" max={1} value={f.progress ?? undefined} aria-label={t("chat.uploading", { name: f.name })} />
              )}
              <button
                type="button"
                className="rounded p-0.5 hover:bg-neutral-200"
                aria-label={t("chat.removeFile", { name: f.name })}
                onClick={() => setFiles((fs) => fs.filter((x) => x.key !== f.key))}
              >
                <X aria-hidden className="h-3.5 w-3.5" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex items-end gap-2">
        {onUpload ? (
          <>
            <input ref={picker} id={`${id}-file`} type="file" multiple accept={UPLOAD_ACCEPT} className="sr-only" onChange={(e) => attach(e.target.files)} data-testid="attach-input" />
            <label
              htmlFor={`${id}-file`}
              title={t("chat.attach")}
              className="inline-flex h-10 w-10 cursor-pointer items-center justify-center rounded-full text-neutral-700 hover:bg-muted focus-within:ring-2 focus-within:ring-emerald-800"
            >
              <Paperclip aria-hidden className="h-5 w-5" />
              <span className="sr-only">{t("chat.attach")}</span>
            </label>
          </>
        ) : null}
        <label htmlFor={id} className="sr-only">
          {t("chat.message")}
        </label>
        <span id={`${id}-keys`} className="sr-only">
          {t("chat.keys")}
        </span>
        <textarea
          id={id}
          aria-describedby={`${id}-keys`}
          title={t("chat.keys")}
          data-testid="composer"
          value={text}
          maxLength={4000}
          rows={Math.min(6, Math.max(1, text.split("\n").length))}
          placeholder={t("chat.placeholder")}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          className="min-h-10 flex-1 resize-none rounded-xl border border-neutral-300 px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-emerald-800"
        />
        <button type="submit" disabled={!canSend} aria-label={pending ? t("chat.sending") : t("chat.send")} className="inline-flex h-10 w-10 items-center justify-center rounded-full bg-emerald-800 text-white disabled:opacity-50">
          <Send aria-hidden className="h-4 w-4" />
        </button>
      </div>
    </form>
  );
}

/** One chat: its history (older pages load on scrolling up), the composer, edits, reactions, read marks. */
function ChatView({ subject, profile, chatId, listed, listReady, onBack }: { subject: string; profile: string; chatId: string; listed: Chat | undefined; listReady: boolean; onBack: () => void }) {
  const { t } = useTranslation();
  const { lang = "ru" } = useParams();
  const qc = useQueryClient();
  const follow = useFollow(subject);
  const key = messagesKey(subject, profile, chatId);
  const one = useQuery({ queryKey: chatKey(subject, profile, chatId), queryFn: () => getChat(subject, profile, chatId), enabled: listReady && !listed, retry: false });
  const chat = listed ?? one.data;
  const q = useQuery({
    queryKey: key,
    // The cache is read again when the answer is in: a live message merged meanwhile is kept.
    queryFn: async () => {
      const atStart = qc.getQueryData<MessageList>(key);
      const page = await getMessages(subject, profile, chatId);
      return withNewest(qc.getQueryData<MessageList>(key), page, PAGE, atStart);
    },
    enabled: !!chat,
  });
  const messages = q.data?.messages ?? [];
  const hasMore = q.data?.hasMore ?? false;
  const firstId = messages[0]?.id;
  const last = messages.at(-1);

  // Scrolling: stay at the bottom for new messages (or one's own), keep the place when older ones load.
  const scroller = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const nearBottom = useRef(true);
  /** Before older messages load: the first message then, and how far the view was from the bottom. */
  const anchor = useRef<{ first: string | undefined; fromBottom: number } | null>(null);
  const seenLast = useRef<string | undefined>(undefined);
  const [older, setOlder] = useState(false);
  const loading = useRef(false);
  // After every render: older messages came in front (keep the place), or a new one at the end.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current && anchor.current.first !== firstId) {
      el.scrollTop = el.scrollHeight - anchor.current.fromBottom;
      anchor.current = null;
    }
    if (last?.id !== seenLast.current) {
      seenLast.current = last?.id;
      if (nearBottom.current || last?.profileId === profile) el.scrollTop = el.scrollHeight;
    }
  });

  const loadOlder = useCallback(async () => {
    const list = qc.getQueryData<MessageList>(messagesKey(subject, profile, chatId));
    const first = list?.messages[0];
    if (!list?.hasMore || !first || loading.current) return;
    loading.current = true;
    setOlder(true);
    const el = scroller.current;
    anchor.current = el ? { first: first.id, fromBottom: el.scrollHeight - el.scrollTop } : null;
    try {
      const page = await getMessages(subject, profile, chatId, { before: first.id });
      if (page.length === 0) anchor.current = null;
      qc.setQueryData<MessageList>(messagesKey(subject, profile, chatId), (l) => (l ? prependOlder(l, page, PAGE) : l));
    } catch (e) {
      anchor.current = null;
      toast.error(errorMessage(e, t, t("chat.failed")));
    } finally {
      loading.current = false;
      setOlder(false);
    }
  }, [qc, subject, profile, chatId, t]);

  useEffect(() => {
    const el = sentinel.current;
    const root = scroller.current;
    if (!el || !root || !hasMore || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void loadOlder(), { root, rootMargin: "160px 0px 0px 0px" });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore, loadOlder]);

  // Reading: the newest message is marked read while the chat is on screen.
  const [visible, setVisible] = useState(() => typeof document === "undefined" || document.visibilityState === "visible");
  useEffect(() => {
    const f = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", f);
    return () => document.removeEventListener("visibilitychange", f);
  }, []);
  const asked = useRef<string | null>(null);
  const lastRead = chat?.lastRead ?? 0;
  useEffect(() => {
    if (!visible || !last || !chat || last.position <= lastRead || asked.current === last.id) return;
    asked.current = last.id;
    markRead(subject, profile, chatId, last.id).then(
      (mark) => follow(applyReadMark(qc, subject, profile, mark)),
      () => {
        asked.current = null;
      },
    );
  }, [visible, last, chat, lastRead, subject, profile, chatId, qc, follow]);

  const send = useMutation({
    mutationFn: ({ text, fileIds }: { text: string; fileIds: string[] }) => postMessage(subject, profile, chatId, text, fileIds),
    onSuccess: (m) => {
      nearBottom.current = true;
      follow({ ...applyMessage(qc, subject, m), unread: false });
      toast.success(t("chat.sent"));
    },
    onError: (e) => toast.error(errorMessage(e, t, t("chat.failed"))),
  });
  const [deleting, setDeleting] = useState<Message | null>(null);
  const actions: MessageActions = {
    onReact: (m, emoji) => {
      react(subject, profile, chatId, m.id, emoji).then(
        (updated) => follow({ ...applyMessage(qc, subject, updated), unread: false }),
        (e: unknown) => toast.error(errorMessage(e, t, t("chat.failed"))),
      );
    },
    onEdit: (m, text) =>
      editMessage(subject, profile, chatId, m.id, text).then(
        (updated) => {
          follow({ ...applyMessage(qc, subject, updated), unread: false });
          toast.success(t("chat.updated"));
          return true;
        },
        (e: unknown) => {
          toast.error(errorMessage(e, t, t("chat.failed")));
          return false;
        },
      ),
    onDelete: (m) => setDeleting(m),
  };
  const remove = (m: Message) => {
    deleteMessage(subject, profile, chatId, m.id).then(
      () => {
        follow(applyDeleted(qc, subject, chatId, m.id));
        toast.success(t("chat.deleted"));
      },
      (e: unknown) => toast.error(errorMessage(e, t, t("chat.failed"))),
    );
  };

  if (!chat) {
    return (
      <div className="flex flex-1 flex-col">
        <ChatHeader title="" onBack={onBack} />
        <p className="p-6 text-neutral-600">{one.isError ? t("chat.notFound") : t("chat.loading")}</p>
      </div>
    );
  }
  const group = chat.members.length > 2;
  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="chat-view" data-chat={chatId}>
      <ChatHeader title={chatName(chat, profile, lang)} onBack={onBack} />
      <div
        ref={scroller}
        className="min-h-0 flex-1 overflow-y-auto px-4 py-3"
        data-testid="messages"
        onScroll={(e) => {
          const el = e.currentTarget;
          nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 120;
        }}
      >
        <div ref={sentinel} />
        {hasMore ? (
          <div className="mb-3 text-center">
            <Button variant="ghost" size="sm" onClick={() => void loadOlder()} disabled={older}>
              {older ? t("chat.loadingEarlier") : t("chat.earlier")}
            </Button>
          </div>
        ) : null}
        {q.isPending ? <p className="text-neutral-600">{t("chat.loading")}</p> : null}
        {q.isSuccess && messages.length === 0 ? <p className="py-8 text-center text-neutral-600">{t("chat.noMessages")}</p> : null}
        <ol className="flex flex-col gap-2" aria-label={t("chat.title")}>
          {messages.map((m, i) => (
            <MessageItem key={m.id} m={m} chat={chat} profile={profile} showAuthor={group && messages[i - 1]?.profileId !== m.profileId} actions={actions} />
          ))}
        </ol>
      </div>
      <Composer
        pending={send.isPending}
        onSend={(text, fileIds) => send.mutateAsync({ text, fileIds }).then(() => true, () => false)}
        onUpload={(file, onProgress) => uploadAttachment(subject, profile, file, onProgress)}
      />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={t("chat.deleteQuestion")}
        cancel={t("chat.cancel")}
        confirm={t("chat.delete")}
        onConfirm={() => {
          if (deleting) remove(deleting);
          setDeleting(null);
        }}
      />
    </div>
  );
}

function ChatHeader({ title, onBack }: { title: string; onBack: () => void }) {
  const { t } = useTranslation();
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-neutral-200 px-3">
      <button type="button" onClick={onBack} aria-label={t("chat.back")} className="rounded-full p-2 hover:bg-muted sm:hidden">
        <ArrowLeft aria-hidden className="h-5 w-5" />
      </button>
      <h2 className="truncate text-lg font-semibold" data-testid="chat-title">
        {title}
      </h2>
    </header>
  );
}

/**
 * The signed-in subject's chats: the list (unread badges, newest message), the open chat beside
 * it, and 'New chat'. Below 640 px the list and the chat are separate views. The open chat is the
 * `chat` query parameter, so the browser's Back returns to the list.
 */
export function ChatsApp({ heading = true }: { heading?: boolean }) {
  const { t } = useTranslation();
  const me = useMe();
  // A guest (a checkout's subject) has no chats: AuthGate shows it the sign-in prompt.
  const subject = isSignedIn(me.data) ? me.data.id : undefined;
  const profiles = useProfiles(subject);
  const [params, setParams] = useSearchParams();
  const own = profiles.data ?? [];
  const profile = own.find((p) => p.id === params.get("profile"))?.id ?? own[0]?.id;
  const chats = useChats(subject, profile);
  const selected = params.get("chat");
  const profileSelectId = useId();
  const select = (chat: string | null) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      if (chat) next.set("chat", chat);
      else next.delete("chat");
      return next;
    });

  let body;
  // A visitor who is not signed in (and the wait for the session) is AuthGate's, below.
  if (!subject) body = null;
  else if (profiles.isPending) body = <p className="text-neutral-600">{t("chat.loading")}</p>;
  else if (!profile) body = <CreateProfileForm subject={subject} />;
  else {
    const list = chats.data ?? [];
    const listed = selected ? list.find((c) => c.id === selected) : undefined;
    body = (
      <div className="grid h-[calc(100dvh-12rem)] min-h-[26rem] overflow-hidden rounded-2xl border border-neutral-200 bg-white sm:grid-cols-[20rem_1fr]" data-testid="chats">
        <aside className={cn("min-h-0 flex-col border-neutral-200 sm:flex sm:border-r", selected ? "hidden" : "flex")} aria-label={t("chat.chats")}>
          <div className="flex h-14 shrink-0 items-center justify-between gap-2 border-b border-neutral-200 px-4">
            {own.length > 1 ? (
              <>
                <label htmlFor={profileSelectId} className="sr-only">
                  {t("chat.profile")}
                </label>
                <select
                  id={profileSelectId}
                  value={profile}
                  onChange={(e) =>
                    setParams((prev) => {
                      const next = new URLSearchParams(prev);
                      next.set("profile", e.target.value);
                      next.delete("chat");
                      return next;
                    })
                  }
                  className="h-9 min-w-0 rounded-md border border-neutral-300 px-2 text-sm"
                >
                  {own.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.adminTitle || p.slug}
                    </option>
                  ))}
                </select>
              </>
            ) : (
              <span className="truncate text-sm font-semibold">{own[0]?.adminTitle}</span>
            )}
            <NewChatDialog subject={subject} profile={profile} own={own.map((p) => p.id)} onStarted={(c) => select(c.id)} />
          </div>
          <ul className="min-h-0 flex-1 overflow-y-auto" data-testid="chat-list">
            {chats.isPending ? <li className="p-4 text-neutral-600">{t("chat.loading")}</li> : null}
            {chats.isSuccess && list.length === 0 ? (
              <li className="p-4 text-neutral-600" data-testid="no-chats">
                {t("chat.empty")} {t("chat.emptyHint")}
              </li>
            ) : null}
            {list.map((c) => (
              <ChatListItem key={c.id} chat={c} profile={profile} selected={c.id === selected} onSelect={() => select(c.id)} />
            ))}
          </ul>
        </aside>
        <div className={cn("min-h-0 flex-col sm:flex", selected ? "flex" : "hidden")}>
          {selected ? (
            <ChatView key={`${profile}:${selected}`} subject={subject} profile={profile} chatId={selected} listed={listed} listReady={chats.isSuccess} onBack={() => select(null)} />
          ) : (
            <p className="m-auto p-6 text-neutral-600">{t("chat.pick")}</p>
          )}
        </div>
      </div>
    );
  }
  return (
    <section className="mx-auto w-full max-w-6xl px-4 py-8" data-testid="chats-screen">
      {heading ? <h1 className="mb-4 text-3xl font-bold">{t("chat.title")}</h1> : null}
      <AuthGate guests={false} skeleton={<GateSkeleton className="px-0 py-0" />} fallback={<SignInPrompt />}>
        {body}
      </AuthGate>
    </section>
  );
}

/** The built-in `/social/chats` screen. */
export function ChatsScreen() {
  return <ChatsApp />;
}
