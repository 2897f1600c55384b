import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { meKey, type Subject, useMe } from "./session";
import { connectQueries, type Live } from "./live";

/** What a module does with the live connection of the signed-in subject (the chats: their events
 * land in the subject's chat caches). Registered with `followLive` (`site/slots.ts`). */
export interface LiveFollower {
  /** Starts following the connection for `subject`; returns the stop. */
  follow(live: Live, qc: QueryClient, subject: string): () => void;
  /** Before the connection reopens: a read only `subject` may make (see `LiveBridge`). */
  beforeReconnect?(qc: QueryClient, subject: string): Promise<unknown>;
}

const followers: LiveFollower[] = [];

/** Adds `f` to what the app does with the live connection of the signed-in subject (once each). */
export function followLive(...f: LiveFollower[]) {
  for (const x of f) if (!followers.includes(x)) followers.push(x);
}

/**
 * Runs the app's live connection for as long as the app is mounted: public data revalidates,
 * the followers (`followLive`) hear the events of the signed-in subject, and the connection is
 * reopened when the session changes (the server decides what a connection hears when it opens).
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
      if (id) await Promise.all(followers.map((f) => f.beforeReconnect?.(qc, id).catch(() => undefined)));
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
    const stops = followers.map((f) => f.follow(live, qc, subject));
    return () => {
      for (const stop of stops) stop();
    };
  }, [live, qc, subject]);

  return null;
}
