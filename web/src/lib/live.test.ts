import { QueryClient } from "@tanstack/react-query";
import { affects, Batcher, bundleModules, connectQueries, Live, type EventSourceLike } from "./live";

/** A stand-in `EventSource`: the test opens, fails and feeds it. */
class FakeSource implements EventSourceLike {
  static all: FakeSource[] = [];
  readyState = 0;
  onopen: EventSourceLike["onopen"] = null;
  onerror: EventSourceLike["onerror"] = null;
  closed = false;
  listeners = new Map<string, ((ev: MessageEvent) => void)[]>();
  constructor(readonly url: string) {
    FakeSource.all.push(this);
  }
  addEventListener(type: string, fn: (ev: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  open() {
    this.readyState = 1;
    this.onopen?.call(this, new Event("open"));
  }
  fail() {
    this.onerror?.call(this, new Event("error"));
  }
  emit(type: string, data: unknown, id: string) {
    const ev = new MessageEvent(type, { data: JSON.stringify(data), lastEventId: id });
    for (const fn of this.listeners.get(type) ?? []) fn(ev);
  }
  static last(): FakeSource {
    const s = FakeSource.all.at(-1);
    if (!s) throw new Error("no source");
    return s;
  }
}

function setup(opts: { beforeReconnect?: () => Promise<unknown> } = {}) {
  FakeSource.all = [];
  const network = new EventTarget();
  let online = true;
  const live = new Live({
    create: (url) => new FakeSource(url),
    backoff: [100, 200],
    network,
    isOnline: () => online,
    beforeReconnect: opts.beforeReconnect,
  });
  return {
    live,
    goOffline() {
      online = false;
      network.dispatchEvent(new Event("offline"));
    },
    goOnline() {
      online = true;
      network.dispatchEvent(new Event("online"));
    },
  };
}

describe("the live connection", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("dispatches named events to their subscribers and to '*', with parsed data", () => {
    const { live } = setup();
    live.start();
    live.start();
    expect(FakeSource.all).toHaveLength(1);
    const messages: unknown[] = [];
    const all: string[] = [];
    const off = live.on("chat.message", (e) => messages.push(e.data));
    live.on("*", (e) => all.push(e.type));
    const s = FakeSource.last();
    s.open();
    s.emit("hello", { id: "ep.0" }, "ep.0");
    s.emit("chat.message", { chatId: "c", message: { id: "m" } }, "ep.1");
    off();
    s.emit("chat.message", { chatId: "c" }, "ep.2");
    expect(messages).toEqual([{ chatId: "c", message: { id: "m" } }]);
    expect(all).toEqual(["hello", "chat.message", "chat.message"]);
    expect(live.lastEventId).toBe("ep.2");
  });

  it("reconnects after an error with backoff, resuming from the last event id, after beforeReconnect", async () => {
    const before = vi.fn(async () => undefined);
    const { live } = setup({ beforeReconnect: before });
    live.start();
    expect(before).not.toHaveBeenCalled();
    const first = FakeSource.last();
    expect(first.url).toBe("/api/live");
    first.open();
    first.emit("hello", {}, "ep.7");
    first.fail();
    expect(first.closed).toBe(true);
    expect(FakeSource.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(before).toHaveBeenCalledTimes(1);
    expect(FakeSource.all).toHaveLength(2);
    expect(FakeSource.last().url).toBe("/api/live?lastEventId=ep.7");
    // A second failure without an open waits longer.
    FakeSource.last().fail();
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeSource.all).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(100);
    expect(FakeSource.all).toHaveLength(3);
    live.stop();
    expect(FakeSource.last().closed).toBe(true);
  });

  it("closes when the network goes and resumes from the last event when it returns", async () => {
    const { live, goOffline, goOnline } = setup();
    live.start();
    const s = FakeSource.last();
    s.open();
    s.emit("revalidate", { entities: [] }, "ep.3");
    goOffline();
    expect(s.closed).toBe(true);
    expect(live.connected).toBe(false);
    // An error while offline schedules nothing: the 'online' event reconnects.
    await vi.advanceTimersByTimeAsync(5000);
    expect(FakeSource.all).toHaveLength(1);
    goOnline();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSource.all).toHaveLength(2);
    expect(FakeSource.last().url).toBe("/api/live?lastEventId=ep.3");
    // Events of a closed source are ignored.
    const seen: string[] = [];
    live.on("*", (e) => seen.push(e.id));
    s.emit("chat.read", {}, "ep.99");
    expect(seen).toEqual([]);
    live.stop();
  });

  it("reconnects at once when asked (the session changed)", async () => {
    const { live } = setup();
    live.start();
    FakeSource.last().emit("hello", {}, "ep.1");
    live.reconnect();
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSource.all).toHaveLength(2);
    expect(FakeSource.all[0]!.closed).toBe(true);
    expect(FakeSource.last().url).toBe("/api/live?lastEventId=ep.1");
    live.stop();
  });
});

describe("revalidation", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("batches entity keys: one flush about a second after the first", () => {
    const flush = vi.fn();
    const b = new Batcher(flush, 1000);
    b.add(["website-builder.widget"]);
    vi.advanceTimersByTime(600);
    b.add(["host.page", "website-builder.widget"]);
    expect(flush).not.toHaveBeenCalled();
    vi.advanceTimersByTime(400);
    expect(flush).toHaveBeenCalledTimes(1);
    expect(flush.mock.calls[0]![0].sort()).toEqual(["host.page", "website-builder.widget"]);
    b.add(["blog.article"]);
    b.cancel();
    vi.advanceTimersByTime(2000);
    expect(flush).toHaveBeenCalledTimes(1);
  });

  const bundle = {
    page: { id: "p", _entity: "host.page" },
    widgets: [{ id: "h", _entity: "host.widget", _externals: [{ id: "x", widget: { id: "w", _entity: "website-builder.widget", _rel: { "widgets-to-features": [{ id: "l", _entity: "website-builder.widgets-to-features", _to: { id: "f", _entity: "file-storage.file" } }] } } }] }],
  };
  const paths = { pathOf: (e: string) => ({ "website-builder.widget": "/api/website-builder/widgets", "social.message": "/api/social/messages" })[e] };

  it("maps entity keys to the queries that show them", () => {
    expect([...bundleModules(bundle)].sort()).toEqual(["file-storage", "host", "website-builder"]);
    // A page bundle: its modules' entities and any page structure change; not a chat elsewhere.
    expect(affects(["page-bundle", "/"], bundle, ["website-builder.widget"], paths)).toBe(true);
    expect(affects(["page-bundle", "/"], bundle, ["file-storage.file"], paths)).toBe(true);
    expect(affects(["page-bundle", "/"], bundle, ["host.pages-to-widgets"], paths)).toBe(true);
    expect(affects(["page-bundle", "/"], bundle, ["social.chats-to-messages", "social.profiles-to-chats"], paths)).toBe(false);
    // A URL without a page: any change may give it one.
    expect(affects(["page-bundle", "/new"], null, ["blog.article"], paths)).toBe(true);
    // Admin tables, by the entity's path.
    expect(affects(["entity", "/api/website-builder/widgets", "list", {}], undefined, ["website-builder.widget"], paths)).toBe(true);
    expect(affects(["entity", "/api/website-builder/widgets", "list", {}], undefined, ["social.message"], paths)).toBe(false);
    expect(affects(["entity", "/api/website-builder/widgets", "one", "id"], undefined, ["website-builder.widget"], paths)).toBe(false);
    // Commerce and the counter.
    expect(affects(["paid-orders-to-products-quantity"], 5, ["ecommerce.orders-to-products"], paths)).toBe(true);
    expect(affects(["commerce", "cart", "s"], [], ["website-builder.widget"], paths)).toBe(false);
    // Profiles are renamed through revalidation; messages only through chat events.
    expect(affects(["social", "s", "profiles"], [], ["social.profile"], paths)).toBe(true);
    expect(affects(["social", "s", "messages", "p", "c"], {}, ["social.profile"], paths)).toBe(false);
    expect(affects(["session", "me"], {}, ["rbac.subject"], paths)).toBe(false);
    expect(affects(["page-bundle", "/"], bundle, [], paths)).toBe(false);
  });

  it("invalidates the touched queries a second after a revalidate, and everything on reset", async () => {
    FakeSource.all = [];
    const qc = new QueryClient();
    qc.setQueryData(["page-bundle", "/"], bundle);
    qc.setQueryData(["page-bundle", "/blog"], { page: { id: "b", _entity: "blog.widget" } });
    qc.setQueryData(["session", "me"], null);
    const live = new Live({ create: (u) => new FakeSource(u), network: null, isOnline: () => true });
    const off = connectQueries(live, qc, 1000);
    live.start();
    const s = FakeSource.last();
    const stale = () =>
      qc
        .getQueryCache()
        .getAll()
        .filter((q) => q.state.isInvalidated)
        .map((q) => JSON.stringify(q.queryKey))
        .sort();
    s.emit("revalidate", { entities: ["website-builder.widget"] }, "e.1");
    await vi.advanceTimersByTimeAsync(999);
    expect(stale()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(stale()).toEqual(['["page-bundle","/"]']);
    s.emit("reset", {}, "e.2");
    await vi.advanceTimersByTimeAsync(0);
    expect(stale()).toEqual(['["page-bundle","/"]', '["page-bundle","/blog"]', '["session","me"]']);
    off();
    live.stop();
  });
});
