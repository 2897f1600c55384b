import { ApiError } from "@/api/http";
import { reply, stubFetch } from "@/test-fetch";
import { bulkCreate, failedItems, sendInChunks } from "./chunks";

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ row: i + 2, body: { slug: `s${i}` } }));

/** A bulk route that refuses a chunk holding any of `bad` (naming the first, as the server's
 * transaction stops at the first failing item), and records what it was sent. */
function server(bad: Set<string>, status = 422) {
  const calls: string[][] = [];
  const send = async (bodies: { slug: string }[]) => {
    calls.push(bodies.map((b) => b.slug));
    const n = bodies.findIndex((b) => bad.has(b.slug));
    if (n >= 0) throw new ApiError(status, "invalid", "invalid", { [`[${n}].slug`]: ["is taken"] });
  };
  return { calls, send };
}

describe("sending rows through the bulk route in chunks", () => {
  it("sends at most 100 rows a request, in order, and reports progress per chunk", async () => {
    const { calls, send } = server(new Set());
    const progress: [number, number][] = [];
    const r = await sendInChunks(items(250), send, { onProgress: (d, t) => progress.push([d, t]) });
    expect(r).toEqual({ sent: 250, failed: [] });
    expect(calls.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(calls.flat()).toEqual(items(250).map((i) => i.body.slug));
    expect(progress).toEqual([
      [100, 250],
      [200, 250],
      [250, 250],
    ]);
  });

  it("reports the rows a refused chunk names and sends the rest of it again without them", async () => {
    // Three bad rows: two in the first chunk, one in the second (by its 409 conflict).
    const { calls, send } = server(new Set(["s3", "s40", "s150"]));
    const r = await sendInChunks(items(200), send);
    expect(r.sent).toBe(197);
    expect(r.failed).toEqual([
      { row: 5, message: "slug is taken" },
      { row: 42, message: "slug is taken" },
      { row: 152, message: "slug is taken" },
    ]);
    expect(calls.map((c) => c.length)).toEqual([100, 99, 98, 100, 99]);
    expect(calls[2]).not.toContain("s3");
    expect(calls[2]).not.toContain("s40");
  });

  it("treats a 409 with indexed fields the same way", async () => {
    const { send } = server(new Set(["s1"]), 409);
    const r = await sendInChunks(items(3), send);
    expect(r).toEqual({ sent: 2, failed: [{ row: 3, message: "slug is taken" }] });
  });

  it("fails a whole chunk with the message when the server names no row, and goes on with the next", async () => {
    let n = 0;
    const r = await sendInChunks(items(150), async () => {
      n += 1;
      if (n === 1) throw new ApiError(503, "unavailable", "try later");
    });
    expect(r.sent).toBe(50);
    expect(r.failed).toHaveLength(100);
    expect(r.failed[0]).toEqual({ row: 2, message: "try later" });
  });

  it("halves a chunk too large for the server (413)", async () => {
    const sizes: number[] = [];
    const r = await sendInChunks(items(100), async (bodies) => {
      sizes.push(bodies.length);
      if (bodies.length > 30) throw new ApiError(413, "too_large", "too large");
    });
    expect(r).toEqual({ sent: 100, failed: [] });
    expect(sizes).toEqual([100, 50, 25, 25, 50, 25, 25]);
  });

  it("reads only indices inside the chunk from a refusal", () => {
    const e = new ApiError(422, "invalid", "invalid", { "[1].title": ["is required"], "[7].slug": ["x"], title: ["y"], "[1].slug": ["bad"] });
    expect([...failedItems(e, 3)]).toEqual([[1, "title is required; slug bad"]]);
    expect(failedItems(new ApiError(500, "x", "x", { "[0].a": ["b"] }), 3).size).toBe(0);
    expect(failedItems(new Error("network"), 3).size).toBe(0);
  });

  it("posts `[{data}]` to the entity's bulk route", async () => {
    const sent = stubFetch(() => reply(201, { data: [] }));
    await bulkCreate({ path: "/api/blog/articles" })([{ slug: "a" }, { slug: "b" }]);
    vi.unstubAllGlobals();
    expect(sent[0]).toMatchObject({ method: "POST", url: "/api/blog/articles/bulk", body: [{ data: { slug: "a" } }, { data: { slug: "b" } }] });
  });
});
