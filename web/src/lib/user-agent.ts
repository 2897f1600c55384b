// A session's device in a few words ("Chrome 131 · Windows", "Safari 17 · iPhone") from its
// User-Agent header: the browser (with its major version) and the system, or the tool for a
// non-browser client ("curl 8.5"). No library: a handful of ordered checks covers what people use.

const SYSTEMS: [RegExp, string][] = [
  [/iPhone/, "iPhone"],
  [/iPad/, "iPad"],
  [/Android/, "Android"],
  [/CrOS/, "ChromeOS"],
  [/Windows/, "Windows"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/Linux/, "Linux"],
];

// Order matters: Edge and Opera say Chrome too, Chrome says Safari, Chrome on iOS is CriOS.
const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/OPR\/(\d+)/, "Opera"],
  [/YaBrowser\/(\d+)/, "Yandex Browser"],
  [/SamsungBrowser\/(\d+)/, "Samsung Internet"],
  [/Firefox\/(\d+)/, "Firefox"],
  [/FxiOS\/(\d+)/, "Firefox"],
  [/CriOS\/(\d+)/, "Chrome"],
  [/HeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/Chrom(?:e|ium)\/(\d+)/, "Chrome"],
  [/Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
];

const TOOLS = /^(curl|Wget|python-requests|PostmanRuntime|okhttp|node-fetch|undici|axios|Go-http-client)\/(\d+(?:\.\d+)?)/i;

/** The device of a User-Agent in short, or null when there is none to read. */
export function shortUserAgent(ua: string | null | undefined): string | null {
  const s = (ua ?? "").trim();
  if (!s) return null;
  const tool = TOOLS.exec(s);
  if (tool) return `${tool[1]} ${tool[2]}`;
  const system = SYSTEMS.find(([re]) => re.test(s))?.[1];
  for (const [re, name] of BROWSERS) {
    const m = re.exec(s);
    if (m) return system ? `${name} ${m[1]} · ${system}` : `${name} ${m[1]}`;
  }
  if (system) return system;
  // Something else: its first product token, cut short.
  const first = s.split(/\s+/)[0] ?? s;
  return first.length > 40 ? `${first.slice(0, 40)}…` : first;
}
