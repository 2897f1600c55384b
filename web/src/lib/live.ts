import type { Query, QueryClient, QueryKey } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useRef } from "react";

/**
 * The app's one live connection: `GET /api/live` as Server-Sent Events (crates/api/src/live.rs).
 *
 * The server sends `hello` first, then `revalidate` {entities} when data the caller may see
 * changed, `chat.*` for the caller's chats, and `reset` when the caller must reload everything
 * (it missed more than the server keeps). Every event has an id; after a disconnect the
 * connection resumes from the last id seen (`?lastEventId=`), so the server replays what was
 * missed. Reconnecting is ours rather than the browser's, so a signed-in page can refresh an
 * expired session first (an `EventSource` sends cookies but cannot refresh them) and so a page
 * that goes offline waits for the network instead of failing requests in a loop.
 */

export const LIVE_URL = "/api/live";

/** The event types the server sends (an `EventSource` only reports named events it listens for). */
export const LIVE_EVENTS = [
  "hello",
  "reset",
  "revalidate",
  "chat.created",
  "chat.message",
  "chat.message.edited",
  "chat.message.deleted",
  "chat.reaction",
  "chat.read",
] as const;
export type LiveEventType = (typeof LIVE_EVENTS)[number];

export interface LiveEvent<T = unknown> {
  type: string;
  /** The server's event id (`<epoch>.<n>`). */
  id: string;
  data: T;
}
export type LiveHandler = (e: LiveEvent) => void;

/** What the connection needs of an `EventSource` (tests pass a fake). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((this: EventSourceLike, ev: Event) => unknown) | null;
  onerror: ((this: EventSourceLike, ev: Event) => unknown) | null;
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  close(): void;
}

/** Where online/offline are reported (the window; tests pass an EventTarget). */
export interface NetworkLike {
  addEventListener(type: "online" | "offline", listener: () => void): void;
  removeEventListener(type: "online" | "offline", listener: () => void): void;
}

export interface LiveOptions {
  url?: string;
  create?: (url: string) => EventSourceLike;
  /** Runs before every reconnect (not the first connect): refresh an expired session, say. */
  beforeReconnect?: () => Promise<unknown>;
  /** Waits between reconnects, in ms; the last one repeats. */
  backoff?: number[];
  network?: NetworkLike | null;
  isOnline?: () => boolean;
}

const BACKOFF = [500, 1000, 2000, 5000, 10_000, 20_000];

export class Live {
  private readonly url: string;
  private readonly create: (url: string) => EventSourceLike;
  private readonly backoff: number[];
  private readonly network: NetworkLike | null;
  private readonly isOnline: () => boolean;
  private beforeReconnect: (() => Promise<unknown>) | undefined;
  private source: EventSourceLike | null = null;
  private lastId: string | null = null;
  private handlers = new Map<string, Set<LiveHandler>>();
  private attempts = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private opened = 0;
  /** Bumped on every (re)connect and stop: a slow `beforeReconnect` of an older one is ignored. */
  private generation = 0;

  constructor(opts: LiveOptions = {}) {
    this.url = opts.url ?? LIVE_URL;
    this.create = opts.create ?? ((u) => new EventSource(u) as unknown as EventSourceLike);
    this.backoff = opts.backoff?.length ? opts.backoff : BACKOFF;
    this.network = opts.network === undefined ? (typeof window === "undefined" ? null : window) : opts.network;
    this.isOnline = opts.isOnline ?? (() => typeof navigator === "undefined" || navigator.onLine !== false);
    this.beforeReconnect = opts.beforeReconnect;
  }

  /** Sets what runs before every reconnect (not the first connect). */
  setBeforeReconnect(fn: (() => Promise<unknown>) | undefined): void {
    this.beforeReconnect = fn;
  }

  /** The id of the last event received (what a reconnect resumes from). */
  get lastEventId(): string | null {
    return this.lastId;
  }

  /** True while an `EventSource` is open or opening. */
  get connected(): boolean {
    return this.source !== null;
  }

  /** Opens the connection (once; later calls do nothing until `stop`). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.network?.addEventListener("online", this.onOnline);
    this.network?.addEventListener("offline", this.onOffline);
    if (this.isOnline()) this.connect();
  }

  /** Closes the connection and stops reconnecting. */
  stop(): void {
    this.running = false;
    this.generation += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.network?.removeEventListener("online", this.onOnline);
    this.network?.removeEventListener("offline", this.onOffline);
    this.close();
  }

  /** Reconnects now, resuming from the last event (after sign-in or sign-out: who is listening changed). */
  reconnect(): void {
    if (!this.running) return;
    this.close();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.attempts = 0;
    if (this.isOnline()) this.connect();
  }

  /** Calls `handler` for every event of `type` (`*`: every event). Returns the unsubscribe. */
  on(type: LiveEventType | "*", handler: LiveHandler): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  private close(): void {
    const s = this.source;
    this.source = null;
    if (s) {
      s.onopen = null;
      s.onerror = null;
      s.close();
    }
  }

  private connect(): void {
    const generation = ++this.generation;
    const go = () => {
      if (generation === this.generation && this.running) this.open();
    };
    if (this.opened > 0 && this.beforeReconnect) {
      this.beforeReconnect().then(go, go);
    } else {
      go();
    }
  }

  private open(): void {
    this.close();
    const url = this.lastId ? `${this.url}?lastEventId=${encodeURIComponent(this.lastId)}` : this.url;
    let source: EventSourceLike;
    try {
      source = this.create(url);
    } catch (e) {
      // No EventSource in this browser: the pages work as before, without live updates.
      console.warn("live updates are off", e);
      return;
    }
    this.source = source;
    this.opened += 1;
    source.onopen = () => {
      this.attempts = 0;
    };
    source.onerror = () => {
      if (this.source !== source) return;
      // The browser would retry by itself; we do, after the session and the network are back.
      this.close();
      this.schedule();
    };
    for (const type of LIVE_EVENTS) {
      source.addEventListener(type, (ev) => {
        if (this.source === source) this.dispatch(type, ev);
      });
    }
  }

  private schedule(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    // Offline: the `online` event reconnects.
    if (!this.isOnline()) return;
    const wait = this.backoff[Math.min(this.attempts, this.backoff.length - 1)] ?? 1000;
    this.attempts += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, wait);
  }

  private onOnline = () => {
    if (!this.running || this.source) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.attempts = 0;
    this.connect();
  };

  private onOffline = () => {
    // The stream is dead without a network; resume from the last id when it returns.
    this.generation += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.close();
  };

  private dispatch(type: string, ev: MessageEvent): void {
    if (ev.lastEventId) this.lastId = ev.lastEventId;
    let data: unknown = null;
    try {
      data = typeof ev.data === "string" && ev.data ? JSON.parse(ev.data) : null;
    } catch {
      data = ev.data;
    }
    const event: LiveEvent = { type, id: ev.lastEventId, data };
    for (const key of [type, "*"]) {
      for (const h of [...(this.handlers.get(key) ?? [])]) {
        try {
          h(event);
        } catch (e) {
          console.warn(`live ${type} handler failed`, e);
        }
      }
    }
  }
}

/**
 * Collects entity keys and hands them over together, `delay` ms after the first of a batch: a
 * burst of changes (an admin saving a form writes several tables) refetches once, and a steady
 * stream still refetches at least once per `delay`.
 */
export class Batcher {
  private pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(
    private readonly flush: (entities: string[]) => void,
    private readonly delay = 1000,
  ) {}

  add(entities: readonly string[]): void {
    for (const e of entities) this.pending.add(e);
    if (this.timer !== undefined || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const list = [...this.pending];
      this.pending.clear();
      this.flush(list);
    }, this.delay);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}

/** `website-builder.widget` → `website-builder`. */
export function moduleOf(entity: string): string {
  const i = entity.indexOf(".");
  return i < 0 ? entity : entity.slice(0, i);
}

const bundleModulesCache = new WeakMap<object, Set<string>>();

/** The modules of every record a page bundle holds (records carry `_entity`). */
export function bundleModules(bundle: unknown): Set<string> {
  if (!bundle || typeof bundle !== "object") return new Set();
  const cached = bundleModulesCache.get(bundle);
  if (cached) return cached;
  const out = new Set<string>();
  const walk = (x: unknown, depth: number) => {
    if (!x || typeof x !== "object" || depth > 24) return;
    if (Array.isArray(x)) {
      for (const v of x) walk(v, depth + 1);
      return;
    }
    const r = x as Record<string, unknown>;
    if (typeof r._entity === "string") out.add(moduleOf(r._entity));
    for (const v of Object.values(r)) if (v && typeof v === "object") walk(v, depth + 1);
  };
  walk(bundle, 0);
  bundleModulesCache.set(bundle, out);
  return out;
}

/** How entity keys name the queries that show them. */
export interface EntityPaths {
  /** The generic REST path of `module.entity` (from `/api/meta`), when known. */
  pathOf: (entity: string) => string | undefined;
}

const commerce = (e: string) => e.startsWith("ecommerce.") || e.startsWith("billing.");

/**
 * Does a change of `entities` touch the query `key` (holding `data`)? The keys are those of
 * `api/entities.ts` (`["entity", path, …]`), `site/page.tsx` (`["page-bundle", url]`), the
 * commerce and social modules.
 *
 * A page bundle is refetched when a page structure (`host.*`) changed, or an entity of a module
 * the bundle shows records of: a chat message on the site does not refetch the home page, an
 * edited widget title does. A bundle that found no page refetches on any change (a page may now
 * claim its URL).
 */
export function affects(key: QueryKey, data: unknown, entities: readonly string[], paths: EntityPaths): boolean {
  if (entities.length === 0) return false;
  switch (key[0]) {
    case "page-bundle": {
      if (!data) return true;
      const modules = bundleModules(data);
      return entities.some((e) => e.startsWith("host.") || modules.has(moduleOf(e)));
    }
    case "entity":
      // Lists and tables refetch; a record open in an edit form does not (a refetch would
      // reset the form under the admin's hands).
      return typeof key[1] === "string" && key[2] !== "one" && entities.some((e) => paths.pathOf(e) === key[1]);
    case "admin":
    case "paid-orders-to-products-quantity":
    case "commerce":
      return entities.some(commerce);
    case "social":
      // Chat data moves through chat.* events; a renamed profile changes the names shown.
      return key[2] !== "messages" && entities.includes("social.profile");
    case "social-directory":
      return entities.includes("social.profile");
    default:
      return false;
  }
}

/** Invalidates (refetching the mounted ones) every query a change of `entities` touches. */
export function revalidate(qc: QueryClient, entities: readonly string[], paths: EntityPaths): Promise<void> {
  return qc.invalidateQueries({ predicate: (q: Query) => affects(q.queryKey, q.state.data, entities, paths) });
}

/** Entity key → REST path, from the `/api/meta` the admin loaded (public pages have none). */
export function metaPaths(qc: QueryClient): EntityPaths {
  return {
    pathOf: (entity) => {
      const meta = qc.getQueryData<{ entities?: { module: string; name: string; path: string }[] }>(["meta"]);
      return meta?.entities?.find((e) => `${e.module}.${e.name}` === entity)?.path;
    },
  };
}

/**
 * Wires a live connection to the query cache: `revalidate` invalidates what the entities touch
 * about `delay` ms later (batched), `reset` invalidates everything. Returns the teardown.
 *
 * The server already sends one event per 300 ms of changes, so the page waits only a little more
 * for a burst to end: an open page promises an edit within 2 s, and a full second here spent half
 * of that before the refetch began (the e2e "within 2 s" check measured 2.4 s on a busy machine).
 */
export function connectQueries(live: Live, qc: QueryClient, delay = 400): () => void {
  const batch = new Batcher((entities) => void revalidate(qc, entities, metaPaths(qc)), delay);
  const offRevalidate = live.on("revalidate", (e) => {
    const entities = (e.data as { entities?: unknown } | null)?.entities;
    if (Array.isArray(entities)) batch.add(entities.filter((x): x is string => typeof x === "string"));
  });
  const offReset = live.on("reset", () => {
    batch.cancel();
    void qc.invalidateQueries();
  });
  return () => {
    offRevalidate();
    offReset();
    batch.cancel();
  };
}

export const LiveContext = createContext<Live | null>(null);

/** The app's live connection (null outside the provider: tests, the admin in isolation). */
export function useLive(): Live | null {
  return useContext(LiveContext);
}

/** Calls `handler` for live events of `type` while mounted (the latest handler, without resubscribing). */
export function useLiveEvent(type: LiveEventType | "*", handler: LiveHandler): void {
  const live = useLive();
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => {
    if (!live) return;
    return live.on(type, (e) => ref.current(e));
  }, [live, type]);
}
