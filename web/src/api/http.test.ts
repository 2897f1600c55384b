import { ApiError, limited, MAX_CONCURRENT_READS, request, setSessionLostHandler } from "./http";

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("the API client", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("unwraps the data envelope", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => reply(200, { data: { id: "1" } })));
    expect(await request("GET", "/api/x")).toEqual({ id: "1" });
  });

  it("turns an error body into an ApiError whose first message is a field's", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => reply(409, { status: 409, code: "conflict", error: "conflict", fields: { slug: ["is already taken"] } })));
    const e = await request("POST", "/api/x", { body: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(409);
    expect((e as ApiError).first).toBe("slug is already taken");
  });

  it("refreshes once on 401 and retries", async () => {
    const calls: string[] = [];
    let n = 0;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        calls.push(url);
        if (url.endsWith("/refresh")) return reply(200, { data: {} });
        n += 1;
        return n === 1 ? reply(401, { error: "expired" }) : reply(200, { data: "ok" });
      }),
    );
    expect(await request("GET", "/api/y")).toBe("ok");
    expect(calls).toEqual(["/api/y", "/api/rbac/subjects/authentication/refresh", "/api/y"]);
  });

  it("reports a lost session when the refresh fails", async () => {
    const lost = vi.fn();
    setSessionLostHandler(lost);
    vi.stubGlobal("fetch", vi.fn(async () => reply(401, { error: "no" })));
    await expect(request("GET", "/api/z")).rejects.toBeInstanceOf(ApiError);
    expect(lost).toHaveBeenCalledTimes(1);
  });

  it("runs at most five reads at once", async () => {
    let inFlight = 0;
    let peak = 0;
    const jobs = Array.from({ length: 12 }, () =>
      limited(async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
      }),
    );
    await Promise.all(jobs);
    expect(MAX_CONCURRENT_READS).toBe(5);
    expect(peak).toBe(5);
  });
});
