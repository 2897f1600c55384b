import type { QueryClient } from "@tanstack/react-query";
import type { LiveFollower } from "@/lib/live-bridge";
import { getUnread, unreadKey } from "./api";
import { applyChatEvent, type Followup } from "./cache";

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

/** Chat events land in the chat caches of the signed-in subject (`lib/live-bridge.tsx`). */
export const chatEvents: LiveFollower = {
  follow(live, qc, subject) {
    const later = followups(qc, subject);
    const off = live.on("*", (e) => {
      if (e.type.startsWith("chat.")) later.add(applyChatEvent(qc, subject, e.type, e.data));
    });
    return () => {
      off();
      later.cancel();
    };
  },
  // The unread count is the subject's own: reading it refreshes an expired session.
  beforeReconnect: (qc, subject) => qc.fetchQuery({ queryKey: unreadKey(subject), queryFn: () => getUnread(subject), staleTime: 0 }),
};
