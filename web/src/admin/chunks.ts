// Sending many rows through an entity's bulk routes (`POST`/`PATCH /bulk`, at most 100 items,
// all or nothing per request): in chunks, a chunk the server refuses for some of its rows sent
// again without them, so the good rows still land and each bad one is reported.
import { entityRoute } from "@/api/client";
import { ApiError } from "@/api/http";
import type { EntityMeta } from "@/api/meta";

/** The most rows one bulk request (and one page of a list) may carry. */
export const CHUNK = 100;

export interface RowFailure {
  /** The row's number as the caller numbers it (the file's row, the selection's position). */
  row: number;
  message: string;
}

/** The rows of a refused bulk request the server named (`[3].title` → index 3), with their messages. */
export function failedItems(e: unknown, size: number): Map<number, string> {
  const out = new Map<number, string>();
  if (!(e instanceof ApiError) || ![400, 409, 422].includes(e.status)) return out;
  for (const [key, messages] of Object.entries(e.fields)) {
    const m = /^\[(\d+)\]\.?(.*)$/.exec(key);
    if (!m) continue;
    const n = Number(m[1]);
    if (n >= size) continue;
    const said = `${m[2] ? `${m[2]} ` : ""}${messages.join("; ") || e.message}`;
    out.set(n, out.has(n) ? `${out.get(n)}; ${said}` : said);
  }
  return out;
}

const messageOf = (e: unknown) => (e instanceof ApiError ? e.first : e instanceof Error ? e.message : String(e));

/**
 * Sends `items` in chunks of at most `size` through `send` (one all-or-nothing bulk request).
 * When the server refuses a chunk naming some of its rows (`fields` like `[3].title`), those
 * rows are reported and the rest of the chunk is sent again without them; a chunk too large for
 * the server (413) is halved; any other failure fails the chunk's rows with its message.
 */
export async function sendInChunks<T>(
  items: { row: number; body: T }[],
  send: (bodies: T[]) => Promise<unknown>,
  { size = CHUNK, onProgress }: { size?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ sent: number; failed: RowFailure[] }> {
  const queue: { row: number; body: T }[][] = [];
  for (let i = 0; i < items.length; i += size) queue.push(items.slice(i, i + size));
  let sent = 0;
  const failed: RowFailure[] = [];
  for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
    while (chunk.length) {
      try {
        await send(chunk.map((c) => c.body));
        sent += chunk.length;
        break;
      } catch (e) {
        if (e instanceof ApiError && e.status === 413 && chunk.length > 1) {
          const half = Math.ceil(chunk.length / 2);
          queue.unshift(chunk.slice(0, half), chunk.slice(half));
          break;
        }
        const bad = failedItems(e, chunk.length);
        if (!bad.size) {
          for (const c of chunk) failed.push({ row: c.row, message: messageOf(e) });
          break;
        }
        for (const [n, message] of bad) failed.push({ row: chunk[n]!.row, message });
        chunk = chunk.filter((_, n) => !bad.has(n));
      }
    }
    onProgress?.(sent + failed.length, items.length);
  }
  failed.sort((a, b) => a.row - b.row);
  return { sent, failed };
}

/** POST `/bulk` of `e`: creates every row of the chunk or none. */
export const bulkCreate = (e: Pick<EntityMeta, "path">) => (bodies: Record<string, unknown>[]) =>
  entityRoute("POST", `${e.path}/bulk`, { body: bodies.map((data) => ({ data })) });

/** PATCH `/bulk` of `e`: updates every row of the chunk or none. */
export const bulkUpdate = (e: Pick<EntityMeta, "path">) => (bodies: { id: string; data: Record<string, unknown> }[]) =>
  entityRoute("PATCH", `${e.path}/bulk`, { body: bodies });
