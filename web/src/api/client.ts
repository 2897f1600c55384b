import createClient, { createQuerySerializer, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import { apiError, type Page } from "./http";
import type { paths } from "./schema";

/**
 * The one API client: `openapi-fetch` over the paths of the server's OpenAPI document
 * (`schema.d.ts`, `npm run api:types`), so a path, its parameters, its body and its answer are
 * typed from the document. Every call goes through `api.*` (or, for the generic admin's entity
 * routes, `entityRoute`), and through the same middleware:
 *
 * - at most MAX_CONCURRENT_READS GETs in flight (SPEC §9), the rest queued in order;
 * - a 401 refreshes the session once (one refresh however many calls failed together) and sends
 *   the request again; when the refresh fails, the session-lost handler runs (`noRefresh: true`
 *   skips this, for the sign-in calls and the refresh itself).
 *
 * The helpers then unwrap the `{data}` envelope (the document types it, so the answer's type is
 * the envelope's `data`) and throw a failed call as an `ApiError`.
 */

/** At most this many reads are in flight at once (SPEC §9); the rest queue in order. */
export const MAX_CONCURRENT_READS = 5;
const REFRESH = "/api/rbac/subjects/authentication/refresh";

let reading = 0;
const waiting: (() => void)[] = [];

function acquire(): Promise<void> | void {
  if (reading < MAX_CONCURRENT_READS) {
    reading += 1;
    return;
  }
  return new Promise<void>((r) => waiting.push(r));
}

function release(): void {
  // A finishing read hands its slot straight to the next in line, so none can jump the queue.
  const next = waiting.shift();
  if (next) next();
  else reading -= 1;
}

let onSessionLost: () => void = () => {};

/** What to do when the session cannot be refreshed (the app sends the user to `/`). */
export function setSessionLostHandler(handler: () => void): void {
  onSessionLost = handler;
}

/** Per request (by openapi-fetch's request id): a copy to send again after a refresh, and whether it holds a read slot. */
const inFlight = new Map<string, { again: Request | null; slot: boolean }>();

/** The language the person uses here: the page's (`/ru/…`), else the document's (the admin's
 * choice). Sent as Accept-Language, so the server writes their mail in it and links it to pages
 * in it, whatever the browser's own setting is. */
export function pageLanguage(): string | undefined {
  const first = globalThis.location?.pathname.split("/")[1] ?? "";
  if (/^[a-z]{2}$/.test(first)) return first;
  const doc = globalThis.document?.documentElement.lang ?? "";
  return /^[a-z]{2}$/.test(doc) ? doc : undefined;
}

const transport: Middleware = {
  async onRequest({ request, id }) {
    const language = pageLanguage();
    if (language) request.headers.set("accept-language", language);
    const slot = request.method === "GET";
    if (slot) await acquire();
    // The body of `request` is used up by sending it: the retry needs its own copy.
    inFlight.set(id, { again: request.clone(), slot });
  },
  async onResponse({ response, id, options }) {
    const call = inFlight.get(id);
    inFlight.delete(id);
    try {
      if (response.status !== 401 || !call?.again) return undefined;
      if (await refreshSession()) return await options.fetch(call.again);
      onSessionLost();
      return undefined;
    } finally {
      if (call?.slot) release();
    }
  },
  onError({ id }) {
    const call = inFlight.get(id);
    inFlight.delete(id);
    if (call?.slot) release();
  },
};

/** Added to one request (`noRefresh: true`): a 401 is final (runs after `transport` has seen the request). */
const noRefresh: Middleware = {
  onRequest({ id }) {
    const call = inFlight.get(id);
    if (call) call.again = null;
  },
};

const serialize = createQuerySerializer();

const client = createClient<paths>({
  // Absolute, so a Request parses where there is no document to resolve a path against (Node's
  // fetch in unit tests); the server's HTML has no `<base>`, so this is the page's own origin.
  baseUrl: globalThis.location?.origin ?? "",
  credentials: "same-origin",
  headers: { accept: "application/json" },
  // Looked up on each call (not captured once), so a test's stubbed `fetch` is the one used.
  fetch: (request) => globalThis.fetch(request),
  // Empty values are left out, as the forms leave a field blank (`?search=` would be a search for "").
  querySerializer: (query) => serialize(Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== null && v !== ""))),
});
client.use(transport);

let refreshing: Promise<boolean> | null = null;

/** Asks for new tokens once, however many calls failed with 401 at the same time. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= client
    .POST(REFRESH, { body: {}, middleware: [noRefresh] })
    .then((r) => r.response.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** What every call may add to openapi-fetch's options. */
export interface CallOptions {
  /** Do not try to refresh the session on 401 (the sign-in forms, sign-out). */
  noRefresh?: boolean;
  /**
   * Send through `fetch` instead of the client's (an upload with progress: `progressFetch`).
   * It gets the request again when a 401 is retried.
   */
  fetch?: (request: Request) => Promise<Response>;
}

type Method = "get" | "post" | "put" | "patch" | "delete";
type Paths<M extends Method> = ClientPathsWithMethod<typeof client, M>;
type Init<M extends Method, P extends Paths<M>> = MaybeOptionalInit<paths[P], M>;
/** The options argument: optional when the operation needs no parameters and no body. */
type Args<M extends Method, P extends Paths<M>> = undefined extends Init<M, P> ? [init?: NonNullable<Init<M, P>> & CallOptions] : [init: Init<M, P> & CallOptions];
/** The JSON of the operation's 2xx answer, as the document describes it. */
type Success<M extends Method, P extends Paths<M>> = NonNullable<FetchResponse<paths[P][M] & Record<string | number, unknown>, object, "application/json">["data"]>;
/** Without its `{data}` envelope. */
type Unwrapped<T> = T extends { data?: infer D } ? D : T;
export type Result<M extends Method, P extends Paths<M>> = Unwrapped<Success<M, P>>;

/** One call through the client, whatever its path; `api.*` types it. */
async function send(method: Method, path: string, init: Record<string, unknown> & CallOptions = {}): Promise<Page<unknown>> {
  const { noRefresh: final, ...rest } = init;
  const call = client.request as unknown as (m: Method, p: string, i: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const { data, error, response } = await call(method, path, { ...rest, middleware: final ? [noRefresh] : undefined });
  if (!response.ok) throw apiError(response.status, response.statusText, error);
  const total = response.headers.get("x-total-count");
  return {
    data: data && typeof data === "object" && "data" in data ? data.data : data,
    total: total === null ? null : Number(total),
    exact: response.headers.get("x-total-count-exact") !== "false",
    next: response.headers.get("x-next-cursor") ?? undefined,
  };
}

function typed<M extends Method>(method: M) {
  return async <P extends Paths<M>>(path: P, ...[init]: Args<M, P>): Promise<Result<M, P>> =>
    (await send(method, path, init as Record<string, unknown>)).data as Result<M, P>;
}

/**
 * The API, typed from the document: `api.get("/api/meta")`,
 * `api.post("/api/rbac/subjects/{id}/social-module/profiles", { params: { path: { id } }, body: { title } })`.
 * Each answers the `data` of the operation's 2xx response; a failure throws an `ApiError`.
 */
export const api = {
  get: typed("get"),
  post: typed("post"),
  put: typed("put"),
  patch: typed("patch"),
  delete: typed("delete"),
  /** A GET of a list, with the X-Total-Count headers (`count: true` asks for them). */
  page: async <P extends Paths<"get">>(path: P, ...[init]: Args<"get", P>): Promise<Page<Result<"get", P>>> =>
    (await send("get", path, init as Record<string, unknown>)) as Page<Result<"get", P>>,
};

/** Options of an `entityRoute` call: openapi-fetch's, untyped. */
export interface RouteOptions extends CallOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  signal?: AbortSignal;
}

/**
 * The escape hatch, for the generic admin only: entity routes whose path is built at run time
 * from `/api/meta` (`/api/{module}/{route}`, `…/{id}`), which no static type can name. Same
 * client, same middleware and unwrapping; the caller states the row type.
 */
export function entityRoute<T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, { query, ...init }: RouteOptions = {}): Promise<Page<T>> {
  return send(method.toLowerCase() as Method, path, { ...init, params: { query } }) as Promise<Page<T>>;
}
