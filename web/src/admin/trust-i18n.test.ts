import type { Catalogue } from "@/lib/translate";
import { securityEn, securityRu } from "@/account/security-i18n";
import { trustEn, trustRu } from "./trust-i18n";

function flatten(tree: Catalogue, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "string") out.set(key, v);
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv);
  }
  return out;
}

/** Russian values that are the English text on purpose (a dash, names of apps). */
const SAME_IN_BOTH = new Set(["trust.diff.empty"]);

const vars = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort().join(",");

describe.each([
  ["audit, history and drafts", trustEn, trustRu],
  ["two-factor sign-in and sessions", securityEn, securityRu],
])("the words of %s", (_name, enTree, ruTree) => {
  const en = flatten(enTree);
  const ru = flatten(ruTree);

  it("exist in en and ru with the same keys, no empty value and the same interpolations", () => {
    expect([...en.keys()].filter((k) => !ru.has(k))).toEqual([]);
    expect([...ru.keys()].filter((k) => !en.has(k))).toEqual([]);
    expect([...en, ...ru].filter(([, v]) => !v.trim())).toEqual([]);
    expect([...en].filter(([k, v]) => vars(v) !== vars(ru.get(k) ?? ""))).toEqual([]);
  });

  it("leave no English in the Russian words", () => {
    expect([...ru].filter(([k, v]) => en.get(k) === v && !SAME_IN_BOTH.has(k)).map(([k]) => k)).toEqual([]);
  });

  it("give every plural key the four forms the translator picks from", () => {
    const plurals = [...en.keys()].filter((k) => /_(one|few|many|other)$/.test(k)).map((k) => k.replace(/_(one|few|many|other)$/, ""));
    for (const base of new Set(plurals)) for (const form of ["one", "few", "many", "other"]) expect(en.has(`${base}_${form}`) && ru.has(`${base}_${form}`)).toBe(true);
  });
});
