/** A failed API call: the server's status, code, message and per-field messages. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string[]>;
  constructor(status: number, code: string, message: string, fields: Record<string, string[]> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
  /** The first message to show: a field's when there is one, otherwise the error's. */
  get first(): string {
    for (const [field, messages] of Object.entries(this.fields)) {
      if (messages[0]) return `${field} ${messages[0]}`;
    }
    return this.message;
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not try to refresh the session on 401 (the refresh call itself, sign-in forms). */
  noRefresh?: boolean;
}

export interface Page<T> {
  data: T;
  total: number | null;
  /** False when the server capped the count (narrowed lists) or estimated it (huge tables). */
  exact: boolean;
}

const REFRESH = "/api/rbac/subjects/authentication/refresh";

/** At most this many reads are in flight at once (SPEC §9); the rest queue in order. */
export const MAX_CONCURRENT_READS = 5;
let reading = 0;
const waiting: (() => void)[] = [];

/** Runs `work` once fewer than MAX_CONCURRENT_READS reads are in flight. */
export async function limited<T>(work: () => Promise<T>): Promise<T> {
  // A finishing read hands its slot straight to the next in line, so none can jump the queue.
  if (reading >= MAX_CONCURRENT_READS) await new Promise<void>((r) => waiting.push(r));
  else reading += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else reading -= 1;
  }
}
let refreshing: Promise<boolean> | null = null;
let onSessionLost: () => void = () => {};

/** What to do when the session cannot be refreshed (the app sends the user to `/`). */
export function setSessionLostHandler(handler: () => void): void {
  onSessionLost = handler;
}

function url(path: string, query?: Query): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== "") qs.set(k, String(v));
  }
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) {
    body = opts.body;
  } else if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  return fetch(url(path, opts.query), { method, headers, body, credentials: "same-origin", signal: opts.signal });
}

/** Asks for new tokens once, however many calls failed with 401 at the same time. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= send("POST", REFRESH, {})
    .then((r) => r.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/**
 * A response body's `data` (or the whole JSON when there is no envelope). A status outside
 * 200–299 throws the server's error (`{status, code, error, fields?}`) as an ApiError.
 */
export function unwrap(status: number, statusText: string, text: string): unknown {
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (status < 200 || status > 299) {
    const e = (json ?? {}) as { code?: string; error?: string; fields?: Record<string, string[]> };
    throw new ApiError(status, e.code ?? "error", e.error || statusText || "Request failed", e.fields ?? {});
  }
  return json && typeof json === "object" && "data" in json ? (json as { data: unknown }).data : json;
}

async function parse(res: Response): Promise<Page<unknown>> {
  const data = unwrap(res.status, res.statusText, await res.text());
  const total = res.headers.get("x-total-count");
  return { data, total: total === null ? null : Number(total), exact: res.headers.get("x-total-count-exact") !== "false" };
}

/** Runs the session-lost handler (for callers that send their own requests, like uploads). */
export function sessionLost(): void {
  onSessionLost();
}

/**
 * Calls the API and unwraps the `{data}` envelope. On 401 it refreshes the session once and
 * retries; when that fails too, the session-lost handler runs and the 401 is thrown.
 */
export async function requestPage<T>(method: string, path: string, opts: RequestOptions = {}): Promise<Page<T>> {
  return method === "GET" ? limited(() => call<T>(method, path, opts)) : call<T>(method, path, opts);
}

async function call<T>(method: string, path: string, opts: RequestOptions): Promise<Page<T>> {
  let res = await send(method, path, opts);
  if (res.status === 401 && !opts.noRefresh) {
    if (await refreshSession()) {
      res = await send(method, path, opts);
    } else {
      onSessionLost();
    }
  }
  const out = await parse(res);
  return { ...out, data: out.data as T };
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  return (await requestPage<T>(method, path, opts)).data;
}
