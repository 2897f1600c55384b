/**
 * A stand-in for the server in unit tests: `stubFetch(answer)` replaces `fetch` (undo with
 * `vi.unstubAllGlobals()`) and records each request the API client sends — its method, its path
 * with the query string (the client sends absolute URLs), and its body parsed from JSON. `answer`
 * also gets the Request itself (for its headers).
 */
export interface Sent {
  method: string;
  url: string;
  body: unknown;
}

export function stubFetch(answer: (sent: Sent, request: Request) => Response | Promise<Response>): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const request = typeof input === "string" ? new Request(new URL(input, location.href), init) : input;
      const u = new URL(request.url);
      const text = await request.text();
      const s: Sent = { method: request.method, url: `${u.pathname}${u.search}`, body: text ? (JSON.parse(text) as unknown) : undefined };
      sent.push(s);
      return answer(s, request);
    }),
  );
  return sent;
}

/** A JSON answer. */
export function reply(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}
