import { FakeXhr, installFakeXhr, sentRequest } from "@/test-xhr";
import { entityClient } from "./entities";
import { reply, stubFetch } from "@/test-fetch";
import { setSessionLostHandler } from "./client";
import { ApiError } from "./http";
import { fraction, multipartBody, upload, type UploadProgress } from "./upload";

/** A File's bytes (jsdom's File has no arrayBuffer()). */
function bytes(f: Blob): Promise<number[]> {
  return new Promise((resolve) => {
    const r = new FileReader();
    r.onload = () => resolve([...new Uint8Array(r.result as ArrayBuffer)]);
    r.readAsArrayBuffer(f);
  });
}

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "pixel.png", { type: "image/png" });

describe("uploads", () => {
  beforeEach(() => {
    installFakeXhr();
  });
  afterEach(() => vi.unstubAllGlobals());

  it("builds a multipart body: the fields as JSON in `data`, each file in a part named after its field", async () => {
    const form = multipartBody({ alt: "A pixel", width: null }, { file: png() });
    expect(JSON.parse(String(form.get("data")))).toEqual({ alt: "A pixel", width: null });
    const part = form.get("file");
    expect(part).toBeInstanceOf(File);
    expect((part as File).name).toBe("pixel.png");
    expect(await bytes(part as File)).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect([...form.keys()]).toEqual(["data", "file"]);
  });

  it("reports progress while the body goes out and unwraps the answer", async () => {
    const seen: UploadProgress[] = [];
    const done = upload<{ id: string; file: string }>("POST", "/api/file-storage/files", multipartBody({}, { file: png() }), { onProgress: (p) => seen.push(p) });
    const x = await sentRequest();
    expect(x.method).toBe("POST");
    expect(x.path).toBe("/api/file-storage/files");
    expect(x.headers.accept).toBe("application/json");
    // The browser sets the multipart content type (with its boundary) itself.
    expect(x.headers["content-type"]).toBeUndefined();
    x.progress(512, 2048);
    x.progress(2048, 2048);
    x.respond(201, { data: { id: "1", file: "/files/abc.png" } });
    expect(await done).toEqual({ id: "1", file: "/files/abc.png" });
    expect(seen).toEqual([
      { loaded: 512, total: 2048 },
      { loaded: 2048, total: 2048 },
    ]);
    expect(seen.map(fraction)).toEqual([0.25, 1]);
    expect(fraction({ loaded: 10, total: 0 })).toBeNull();
  });

  it("turns the server's error into an ApiError (413, 415) and a dropped connection into status 0", async () => {
    const big = upload("POST", "/api/file-storage/files", multipartBody({}, { file: png() }));
    (await sentRequest(1)).respond(413, { status: 413, code: "payload_too_large", error: "file 'file' is larger than 20971520 bytes" });
    const e = await big.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(413);
    expect((e as ApiError).message).toBe("file 'file' is larger than 20971520 bytes");

    const bad = upload("POST", "/api/file-storage/files", multipartBody({}, { file: png() }));
    (await sentRequest(2)).respond(415, { status: 415, code: "unsupported_media_type", error: "not allowed", fields: { file: ["type text/plain is not allowed"] } });
    expect(((await bad.catch((x: unknown) => x)) as ApiError).first).toBe("file type text/plain is not allowed");

    const cut = upload("POST", "/api/file-storage/files", multipartBody({}, { file: png() }));
    (await sentRequest(3)).fail();
    expect(((await cut.catch((x: unknown) => x)) as ApiError).status).toBe(0);
  });

  it("refreshes the session once on 401 and sends the body again", async () => {
    const calls = stubFetch(() => reply(201, { data: {} }));
    const done = upload<{ id: string }>("PATCH", "/api/file-storage/files/1", multipartBody({}, { file: png() }));
    (await sentRequest(1)).respond(401, { error: "expired" });
    const again = await sentRequest(2);
    expect(again.method).toBe("PATCH");
    expect(again.form.files.file?.name).toBe("pixel.png");
    again.respond(200, { data: { id: "1" } });
    expect(await done).toEqual({ id: "1" });
    expect(calls.map((c) => c.url)).toEqual(["/api/rbac/subjects/authentication/refresh"]);
  });

  it("reports a lost session when the refresh fails", async () => {
    const lost = vi.fn();
    setSessionLostHandler(lost);
    stubFetch(() => reply(401, {}));
    const done = upload("POST", "/api/file-storage/files", multipartBody({}, { file: png() }));
    (await sentRequest(1)).respond(401, { error: "expired" });
    await expect(done).rejects.toBeInstanceOf(ApiError);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(FakeXhr.sent).toHaveLength(1);
    setSessionLostHandler(() => {});
  });

  it("aborts with the signal", async () => {
    const ctl = new AbortController();
    const done = upload("POST", "/api/file-storage/files", multipartBody({}, { file: png() }), { signal: ctl.signal });
    const x = await sentRequest();
    ctl.abort();
    expect(x.aborted).toBe(true);
    await expect(done).rejects.toMatchObject({ name: "AbortError" });
  });

  it("the entity client sends JSON without files and multipart with them", async () => {
    const json = stubFetch(() => reply(201, { data: { id: "2" } }));
    const c = entityClient({ path: "/api/file-storage/files" });
    expect(await c.create({ file: "/files/demo/a.svg" })).toEqual({ id: "2" });
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ method: "POST", url: "/api/file-storage/files", body: { file: "/files/demo/a.svg" } });
    expect(FakeXhr.sent).toHaveLength(0);

    const progress: UploadProgress[] = [];
    const done = c.update("2", { alt: "x" }, { files: { file: png() }, onProgress: (p) => progress.push(p) });
    const x = await sentRequest();
    expect(x.method).toBe("PATCH");
    expect(x.path).toBe("/api/file-storage/files/2");
    expect(x.form.data).toEqual({ alt: "x" });
    expect(Object.keys(x.form.files)).toEqual(["file"]);
    x.progress(1, 4);
    x.respond(200, { data: { id: "2", file: "/files/new.png" } });
    expect(await done).toEqual({ id: "2", file: "/files/new.png" });
    expect(progress).toEqual([{ loaded: 1, total: 4 }]);
    expect(json).toHaveLength(1);
  });
});
