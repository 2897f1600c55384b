import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { meKey, type Subject, useMe } from "@/modules/rbac/session";
import { getUnread, unreadKey } from "@/social/api";
import { applyChatEvent, type Followup } from "@/social/cache";
import { connectQueries, type Live } from "./live";

/** Refetches chat lists and the unread badge shortly after chat events (a burst refetches once). */
export function followups(qc: QueryClient, subject: string, delay = 250) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let want: Followup = { chats: false, unread: false };
  return {
    add(f: Followup) {
      want = { chats: want.chats || f.chats, unread: want.unread || f.unread };
      if (timer !== undefined || !(want.chats || want.unread)) return;
      timer = setTimeout(() => {
        timer = undefined;
        const w = want;
        want = { chats: false, unread: false };
        if (w.chats) void qc.invalidateQueries({ queryKey: ["social", subject, "chats"] });
        if (w.unread) void qc.invalidateQueries({ queryKey: unreadKey(subject) });
      }, delay);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * Runs the app's live connection for as long as the app is mounted: public data revalidates,
 * chat events land in the chat caches of the signed-in subject, and the connection is reopened
 * when the session changes (the server decides what a connection hears when it opens).
 */
export function LiveBridge({ live }: { live: Live }) {
  const qc = useQueryClient();
  const me = useMe();
  const subject = me.data?.id;

  useEffect(() => {
    const off = connectQueries(live, qc);
    // A signed-in page's access cookie may have expired while it was disconnected: an owner-only
    // read first refreshes the session (on 401), so the new connection is the subject's again.
    live.setBeforeReconnect(async () => {
      const id = qc.getQueryData<Subject | null>(meKey)?.id;
      if (id) await qc.fetchQuery({ queryKey: unreadKey(id), queryFn: () => getUnread(id), staleTime: 0 }).catch(() => undefined);
    });
    live.start();
    return () => {
      off();
      live.stop();
    };
  }, [live, qc]);

  // Sign-in, sign-out, another account: reconnect (resuming from the last event).
  const seen = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (me.isPending) return;
    const id = subject ?? null;
    if (seen.current !== undefined && seen.current !== id) live.reconnect();
    seen.current = id;
  }, [me.isPending, subject, live]);

  useEffect(() => {
    if (!subject) return;
    const later = followups(qc, subject);
    const off = live.on("*", (e) => {
      if (e.type.startsWith("chat.")) later.add(applyChatEvent(qc, subject, e.type, e.data));
    });
    return () => {
      off();
      later.cancel();
    };
  }, [live, qc, subject]);

  return null;
}
