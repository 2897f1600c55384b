import { reply, stubFetch } from "@/test-fetch";
import { api, entityRoute, MAX_CONCURRENT_READS, setSessionLostHandler } from "./client";
import { ApiError } from "./http";

const REFRESH = "/api/rbac/subjects/authentication/refresh";

describe("the API client", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    setSessionLostHandler(() => {});
  });

  it("fills in path parameters, leaves out empty query values and unwraps the data envelope", async () => {
    const headers: Headers[] = [];
    const sent = stubFetch((_, r) => (headers.push(r.headers), reply(200, { data: [{ id: "m1" }] })));
    const rows = await api.get("/api/rbac/subjects/{id}/social-module/profiles/{profileId}/chats/{chatId}/messages", {
      params: { path: { id: "s1", profileId: "p1", chatId: "c1" }, query: { limit: 50, before: undefined, after: 3 } },
    });
    expect(rows).toEqual([{ id: "m1" }]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.method).toBe("GET");
    expect(sent[0]?.url).toBe("/api/rbac/subjects/s1/social-module/profiles/p1/chats/c1/messages?limit=50&after=3");
    expect(headers[0]?.get("accept")).toBe("application/json");
  });

  it("sends a JSON body", async () => {
    let type: string | null = null;
    const sent = stubFetch((_, r) => ((type = r.headers.get("content-type")), reply(201, { data: { id: "p9", title: { en: "Ada" } } })));
    const p = await api.post("/api/rbac/subjects/{id}/social-module/profiles", { params: { path: { id: "s1" } }, body: { title: "Ada" } });
    expect(p).toEqual({ id: "p9", title: { en: "Ada" } });
    expect(sent[0]).toMatchObject({ method: "POST", url: "/api/rbac/subjects/s1/social-module/profiles", body: { title: "Ada" } });
    expect(type).toBe("application/json");
  });

  it("reads X-Total-Count into a page", async () => {
    stubFetch(() => reply(200, { data: [] }, { "x-total-count": "42", "x-total-count-exact": "false" }));
    expect(await api.page("/api/social/profiles", { params: { query: { count: true } } })).toEqual({ data: [], total: 42, exact: false });
    stubFetch(() => reply(200, { data: [] }));
    expect(await api.page("/api/social/profiles")).toEqual({ data: [], total: null, exact: true });
  });

  it("turns an error body into an ApiError with its status, code and fields", async () => {
    stubFetch(() => reply(409, { status: 409, code: "conflict", error: "conflict", fields: { slug: ["is already taken"] } }));
    const e = await api.post("/api/rbac/subjects/{id}/social-module/profiles", { params: { path: { id: "s1" } }, body: { title: "x" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 409, code: "conflict", message: "conflict", fields: { slug: ["is already taken"] } });
    expect((e as ApiError).first).toBe("slug is already taken");
  });

  it("gives an error without a JSON body its status text", async () => {
    stubFetch(() => new Response("upstream down", { status: 502, statusText: "Bad Gateway" }));
    const e = (await api.get("/api/meta").catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ status: 502, code: "error", message: "Bad Gateway", fields: {} });
  });

  it("refreshes once on 401 for calls that failed together, and sends each again", async () => {
    let refreshed = false;
    const sent = stubFetch(({ url }) => {
      if (url === REFRESH) {
        refreshed = true;
        return reply(201, { data: { jwt: "j", refresh: "r" } });
      }
      return refreshed ? reply(200, { data: url }) : reply(401, { status: 401, code: "unauthorized", error: "expired" });
    });
    const ids = ["a", "b", "c"];
    const answers = await Promise.all(ids.map((id) => api.get("/api/rbac/subjects/{id}/social-module/unread", { params: { path: { id } } })));
    expect(answers).toEqual(ids.map((id) => `/api/rbac/subjects/${id}/social-module/unread`));
    const refreshes = sent.filter((s) => s.url === REFRESH);
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]).toMatchObject({ method: "POST", body: {} });
    expect(sent).toHaveLength(ids.length * 2 + 1);
  });

  it("sends a body again after the refresh", async () => {
    let n = 0;
    const sent = stubFetch(({ url }) => (url === REFRESH ? reply(201, { data: {} }) : ++n === 1 ? reply(401, { error: "expired" }) : reply(201, { data: { id: "p1" } })));
    await api.post("/api/rbac/subjects/{id}/social-module/profiles", { params: { path: { id: "s1" } }, body: { title: "Ada" } });
    expect(sent.map((s) => [s.url, s.body])).toEqual([
      ["/api/rbac/subjects/s1/social-module/profiles", { title: "Ada" }],
      [REFRESH, {}],
      ["/api/rbac/subjects/s1/social-module/profiles", { title: "Ada" }],
    ]);
  });

  it("reports a lost session when the refresh fails, and throws the 401", async () => {
    const lost = vi.fn();
    setSessionLostHandler(lost);
    const sent = stubFetch(() => reply(401, { status: 401, code: "unauthorized", error: "no" }));
    await expect(api.get("/api/meta")).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(lost).toHaveBeenCalledTimes(1);
    expect(sent.map((s) => s.url)).toEqual(["/api/meta", REFRESH]);
  });

  it("does not refresh for a call marked noRefresh", async () => {
    const lost = vi.fn();
    setSessionLostHandler(lost);
    const sent = stubFetch(() => reply(401, { status: 401, code: "unauthorized", error: "wrong password" }));
    const e = await api
      .post("/api/rbac/subjects/authentication/email-and-password/authentication", { body: { login: "a@b.c", password: "12345678" }, noRefresh: true })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(sent.map((s) => s.url)).toEqual(["/api/rbac/subjects/authentication/email-and-password/authentication"]);
    expect(lost).not.toHaveBeenCalled();
  });

  it("runs at most five reads at once, in order, and does not hold writes back", async () => {
    let inFlight = 0;
    let peak = 0;
    const started: string[] = [];
    stubFetch(async ({ method, url }) => {
      started.push(`${method} ${url}`);
      if (method !== "GET") return reply(200, { data: {} });
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight -= 1;
      return reply(200, { data: url });
    });
    const reads = Array.from({ length: 12 }, (_, i) => api.get("/api/rbac/subjects/{id}/social-module/unread", { params: { path: { id: String(i) } } }));
    const write = api.post("/api/notification/topics/send-all");
    await new Promise((r) => setTimeout(r, 0));
    // The write went out while the queued reads wait.
    expect(started.filter((s) => s.startsWith("POST"))).toHaveLength(1);
    expect(started.filter((s) => s.startsWith("GET"))).toHaveLength(MAX_CONCURRENT_READS);
    const answers = await Promise.all(reads);
    await write;
    expect(MAX_CONCURRENT_READS).toBe(5);
    expect(peak).toBe(5);
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => `/api/rbac/subjects/${i}/social-module/unread`));
    expect(started.filter((s) => s.startsWith("GET"))).toEqual(answers.map((a) => `GET ${a}`));
  });

  it("frees a read's place when the request fails", async () => {
    stubFetch(() => Promise.reject(new TypeError("Failed to fetch")));
    const failures = await Promise.all(Array.from({ length: 8 }, () => api.get("/api/meta").catch((e: unknown) => e)));
    expect(failures.every((e) => e instanceof TypeError)).toBe(true);
    stubFetch(() => reply(200, { data: "ok" }));
    const ok = await Promise.all(Array.from({ length: 6 }, () => api.get("/api/revalidation/revalidate")));
    expect(ok).toEqual(Array(6).fill("ok"));
  });

  it("calls the generic admin's run-time entity routes through the same client", async () => {
    const sent = stubFetch(({ method }) => (method === "GET" ? reply(200, { data: [{ id: "1" }] }, { "x-total-count": "1" }) : reply(401, { error: "expired" })));
    const page = await entityRoute<{ id: string }[]>("GET", "/api/blog/posts", { query: { limit: 20, search: "", filters: '{"and":[]}' } });
    expect(page).toEqual({ data: [{ id: "1" }], total: 1, exact: true });
    expect(sent[0]?.url).toBe("/api/blog/posts?limit=20&filters=%7B%22and%22%3A%5B%5D%7D");
    // The same middleware: a 401 refreshes the session.
    await expect(entityRoute("DELETE", "/api/blog/posts/1")).rejects.toBeInstanceOf(ApiError);
    expect(sent.slice(1).map((s) => `${s.method} ${s.url}`)).toEqual(["DELETE /api/blog/posts/1", `POST ${REFRESH}`]);
  });
});
