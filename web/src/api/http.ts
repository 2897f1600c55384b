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

/** The server's error body (`{status, code, error, fields?}`, parsed when it was JSON) as an ApiError. */
export function apiError(status: number, statusText: string, body: unknown): ApiError {
  const e = (body && typeof body === "object" ? body : {}) as { code?: string; error?: string; fields?: Record<string, string[]> };
  return new ApiError(status, e.code ?? "error", e.error || statusText || "Request failed", e.fields ?? {});
}

/** A list's rows and its X-Total-Count headers. */
export interface Page<T> {
  data: T;
  total: number | null;
  /** False when the server capped the count (narrowed lists) or estimated it (huge tables). */
  exact: boolean;
  /** A full page of a list: the `after` cursor of the next page (X-Next-Cursor). */
  next?: string;
}
