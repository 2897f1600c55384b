import { entityRoute } from "./client";
import { ApiError } from "./http";

/** The types the server keeps (it sniffs the bytes; this only narrows the picker). */
export const UPLOAD_ACCEPT = [
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/gif",
  "image/avif",
  "image/svg+xml",
  "video/mp4",
  "video/webm",
  "application/pdf",
  ".png,.jpg,.jpeg,.webp,.gif,.avif,.svg,.mp4,.webm,.pdf",
].join(",");

/** How far an upload's body has gone out: bytes sent of `total` (0 when the browser cannot tell). */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/** The share sent, 0–1, or null when the size is unknown. */
export function fraction(p: UploadProgress | null | undefined): number | null {
  if (!p || p.total <= 0) return null;
  return Math.min(1, Math.max(0, p.loaded / p.total));
}

export interface UploadOptions {
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}

/**
 * The multipart body of a create or update with files: the other fields as JSON in `data`, and
 * each file in a part named after its field (the server stores it and puts its URL in the field).
 */
export function multipartBody(data: Record<string, unknown>, files: Record<string, Blob>): FormData {
  const form = new FormData();
  form.append("data", JSON.stringify(data));
  for (const [field, file] of Object.entries(files)) {
    form.append(field, file, file instanceof File ? file.name : field);
  }
  return form;
}

/**
 * A `fetch` for one multipart request that sends it with XMLHttpRequest (fetch cannot report
 * upload progress). It sends `form` itself — the same body the client built the Request from —
 * so a retry after a 401 sends the files again. The Request gives the method, URL, headers and
 * abort signal; the browser sets the multipart content type (with its boundary).
 */
export function progressFetch(form: FormData, onProgress?: (p: UploadProgress) => void): (request: Request) => Promise<Response> {
  return (request) =>
    new Promise((resolve, reject) => {
      const signal = request.signal;
      if (signal.aborted) {
        reject(new DOMException("The upload was canceled", "AbortError"));
        return;
      }
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url);
      request.headers.forEach((value, name) => {
        if (name !== "content-type") xhr.setRequestHeader(name, value);
      });
      xhr.upload.onprogress = (e: ProgressEvent) => onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
      xhr.onload = () => resolve(toResponse(xhr));
      // A server that refuses a large body may close the connection before reading it: no status.
      xhr.onerror = () => reject(new ApiError(0, "network", "The upload was interrupted"));
      xhr.onabort = () => reject(new DOMException("The upload was canceled", "AbortError"));
      signal.addEventListener("abort", () => xhr.abort(), { once: true });
      xhr.send(form);
    });
}

function toResponse(xhr: XMLHttpRequest): Response {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
  return new Response(empty ? null : xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers });
}

/**
 * Sends a multipart body (the other fields as JSON in `data`, a part per file) through the API
 * client, reporting progress, and answers the `{data}` of the result. Like every call, a 401
 * refreshes the session once and sends it again.
 */
export async function upload<T>(method: "POST" | "PATCH", path: string, body: FormData, opts: UploadOptions = {}): Promise<T> {
  return (await entityRoute<T>(method, path, { body, signal: opts.signal, fetch: progressFetch(body, opts.onProgress) })).data;
}
