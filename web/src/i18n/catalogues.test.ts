import { en } from "./en";
import { ru } from "./ru";

type Tree = { [k: string]: string | Tree };

/** Every leaf of a catalogue as `dotted.key → value`. */
function flatten(tree: Tree, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object") for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
    else out.set(key, v);
  }
  return out;
}

const vars = (s: unknown) => [...String(s).matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

/** What is wrong between two catalogues: keys only one has (either way, at any depth), empty
 * values, and interpolations that differ. */
function catalogueProblems(catalogues: Record<string, Tree>): string[] {
  const flat = Object.entries(catalogues).map(([lang, tree]) => [lang, flatten(tree)] as const);
  const problems: string[] = [];
  const all = new Set(flat.flatMap(([, m]) => [...m.keys()]));
  for (const key of [...all].sort()) {
    const present = flat.filter(([, m]) => m.has(key));
    for (const [lang] of flat.filter(([, m]) => !m.has(key))) problems.push(`${key}: missing in ${lang} (present in ${present.map(([l]) => l).join(", ")})`);
    for (const [lang, m] of present) {
      const v = m.get(key);
      if (typeof v !== "string" || v.trim() === "") problems.push(`${key}: empty in ${lang}`);
    }
    const shapes = new Set(present.map(([, m]) => vars(m.get(key)).join(",")));
    if (shapes.size > 1) problems.push(`${key}: interpolations differ (${present.map(([l, m]) => `${l}: ${vars(m.get(key)).join(",") || "none"}`).join("; ")})`);
  }
  return problems;
}

/**
 * Russian values that are the English text on purpose (names, brands, codes, the word Email as
 * Russian interfaces use it). Anything else equal in both is an English string on Russian pages.
 */
const SAME_IN_BOTH = new Set([
  "login.email",
  "login.methodEvm",
  "orders.email",
  "media.pdf",
  "chat.reaction",
  "commerce.providers.cloudpayments",
  "commerce.providers.tiptoppay",
  "commerce.providers.stripe",
  "commerce.providers.payselection",
  "commerce.providers.payselection-international",
  "commerce.providers.paykeeper",
  "commerce.providers.0xprocessing",
]);

describe("the i18n catalogues", () => {
  it("have the same keys, deep, in both directions, and no empty value", () => {
    expect(catalogueProblems({ en: en as Tree, ru: ru as unknown as Tree })).toEqual([]);
  });

  it("catch a key that exists in one language only, at any depth, and an empty value", () => {
    const problems = catalogueProblems({
      en: { a: "A", nested: { b: "B", only: "x" }, c: "C" },
      ru: { a: "А", nested: { b: "" }, extra: { deep: "Д" }, c: "{{n}} С" },
    });
    expect(problems).toEqual([
      "c: interpolations differ (en: none; ru: n)",
      "extra.deep: missing in en (present in ru)",
      "nested.b: empty in ru",
      "nested.only: missing in ru (present in en)",
    ]);
  });

  it("have no English left in the Russian one except where it is deliberately the same", () => {
    const eng = flatten(en as Tree);
    const same = [...flatten(ru as unknown as Tree)].filter(([k, v]) => eng.get(k) === v && !SAME_IN_BOTH.has(k)).map(([k]) => k);
    expect(same).toEqual([]);
    const stale = [...SAME_IN_BOTH].filter((k) => !eng.has(k));
    expect(stale).toEqual([]);
  });
});
