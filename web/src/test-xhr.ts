/**
 * A stand-in for XMLHttpRequest in unit tests: records what was sent, and lets the test report
 * upload progress, answer, or drop the connection. `installFakeXhr()` puts it in place (undo with
 * `vi.unstubAllGlobals()`).
 */
export class FakeXhr {
  static sent: FakeXhr[] = [];
  method = "";
  url = "";
  headers: Record<string, string> = {};
  body: Document | XMLHttpRequestBodyInit | null = null;
  status = 0;
  statusText = "";
  responseText = "";
  aborted = false;
  upload: { onprogress: ((e: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  send(body: Document | XMLHttpRequestBodyInit | null) {
    this.body = body;
    FakeXhr.sent.push(this);
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  /** The browser reports `loaded` of `total` bytes sent (`total` 0: not computable). */
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: total > 0 } as ProgressEvent);
  }
  getAllResponseHeaders(): string {
    return this.status ? "content-type: application/json\r\n" : "";
  }
  /** The path and query the request went to (the API client sends absolute URLs). */
  get path(): string {
    const u = new URL(this.url, location.href);
    return `${u.pathname}${u.search}`;
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = body === undefined ? "" : JSON.stringify(body);
    this.onload?.();
  }
  /** The connection drops before an answer (a server refusing a huge body may do that). */
  fail() {
    this.onerror?.();
  }
  /** The body as multipart parts: `data` parsed from JSON, files as File. */
  get form(): { data: unknown; files: Record<string, File> } {
    const f = this.body as FormData;
    const files: Record<string, File> = {};
    for (const [k, v] of f.entries()) if (typeof v !== "string") files[k] = v;
    return { data: JSON.parse(String(f.get("data"))), files };
  }
}

export function installFakeXhr(): typeof FakeXhr {
  FakeXhr.sent = [];
  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  return FakeXhr;
}

/** Waits until `n` requests have been sent (they go out after awaited work, like a refresh). */
export async function sentRequest(n = 1): Promise<FakeXhr> {
  for (let i = 0; i < 100 && FakeXhr.sent.length < n; i++) await new Promise((r) => setTimeout(r, 5));
  const x = FakeXhr.sent[n - 1];
  if (!x) throw new Error(`request ${n} was not sent`);
  return x;
}
