import { ApiError, refreshSession, sessionLost, unwrap } from "./http";

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

interface Raw {
  status: number;
  statusText: string;
  text: string;
}

function send(method: string, path: string, body: FormData, opts: UploadOptions): Promise<Raw> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new DOMException("The upload was canceled", "AbortError"));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (e: ProgressEvent) => opts.onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
    xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
    // A server that refuses a large body may close the connection before reading it: no status.
    xhr.onerror = () => reject(new ApiError(0, "network", "The upload was interrupted"));
    xhr.onabort = () => reject(new DOMException("The upload was canceled", "AbortError"));
    opts.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/**
 * Sends a multipart body with XMLHttpRequest (fetch cannot report upload progress) and unwraps
 * the `{data}` envelope. Like `request`, a 401 refreshes the session once and sends it again.
 */
export async function upload<T>(method: "POST" | "PATCH", path: string, body: FormData, opts: UploadOptions = {}): Promise<T> {
  let res = await send(method, path, body, opts);
  if (res.status === 401) {
    if (await refreshSession()) res = await send(method, path, body, opts);
    else sessionLost();
  }
  return unwrap(res.status, res.statusText, res.text) as T;
}
