import { COLLECT, counted, pagePath, resetAnalytics, trackEvent, trackView } from "./analytics";

function beacons() {
  const sent: { url: string; body: unknown }[] = [];
  const beacon = vi.fn((url: string, body: string) => {
    sent.push({ url, body: JSON.parse(body) });
    return true;
  });
  Object.defineProperty(navigator, "sendBeacon", { value: beacon, configurable: true, writable: true });
  return { sent, beacon };
}

describe("page-view analytics", () => {
  beforeEach(() => resetAnalytics());
  afterEach(() => {
    vi.unstubAllGlobals();
    Reflect.deleteProperty(navigator, "sendBeacon");
    vi.restoreAllMocks();
  });

  it("counts /ru/ and /ru as one page", () => {
    expect(pagePath("/ru/")).toBe("/ru");
    expect(pagePath("/en/blog//")).toBe("/en/blog");
    expect(pagePath("/")).toBe("/");
    expect(pagePath("//")).toBe("/");
  });

  it("counts the site's pages, never the back office", () => {
    expect(counted("/ru")).toBe(true);
    expect(counted("/en/blog/articles/x")).toBe(true);
    expect(counted("/administrators")).toBe(true);
    expect(counted("/admin")).toBe(false);
    expect(counted("/admin/notification/notification")).toBe(false);
    expect(counted("https://elsewhere.example/")).toBe(false);
  });

  it("sends a view per new path as a beacon, with the referrer on the first view only", () => {
    vi.spyOn(document, "referrer", "get").mockReturnValue("https://search.example/?q=trees");
    const { sent } = beacons();
    trackView("/ru/", "ru");
    trackView("/ru", "ru"); // the same page again (an anchor, an effect run twice): one view
    trackView("/ru/blog", "ru");
    trackView("/admin", "ru");
    trackView("/en", "en");
    expect(sent.map((s) => s.url)).toEqual([COLLECT, COLLECT, COLLECT]);
    expect(sent.map((s) => s.body)).toEqual([
      { type: "view", path: "/ru", language: "ru", referrer: "https://search.example/?q=trees" },
      { type: "view", path: "/ru/blog", language: "ru" },
      { type: "view", path: "/en", language: "en" },
    ]);
  });

  it("falls back to a keepalive fetch without cookies when there is no beacon or it is refused", () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal("fetch", fetch);
    Object.defineProperty(navigator, "sendBeacon", { value: vi.fn(() => false), configurable: true, writable: true });
    trackEvent("donation-started", "/ru/");
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(COLLECT);
    expect(init).toMatchObject({ method: "POST", keepalive: true, credentials: "omit" });
    expect(JSON.parse(String(init.body))).toEqual({ type: "event", name: "donation-started", path: "/ru" });
  });

  it("sends events with the current path and never throws", () => {
    const { sent } = beacons();
    window.history.pushState({}, "", "/en/contact");
    trackEvent("form-submitted");
    expect(sent[0]?.body).toEqual({ type: "event", name: "form-submitted", path: "/en/contact" });
    Object.defineProperty(navigator, "sendBeacon", {
      value: () => {
        throw new Error("refused");
      },
      configurable: true,
      writable: true,
    });
    vi.stubGlobal("fetch", () => {
      throw new Error("offline");
    });
    expect(() => trackEvent("sign-up")).not.toThrow();
  });
});
