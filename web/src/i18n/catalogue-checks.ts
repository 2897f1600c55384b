// Checks of a pair (or more) of catalogues, shared by every catalogue's test: the app's own and
// the ones that load with the admin and account chunks.

export type Tree = { [k: string]: string | Tree };

/** Every leaf of a catalogue as `dotted.key → value`. */
export function flatten(tree: Tree, prefix = ""): Map<string, unknown> {
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
export function catalogueProblems(catalogues: Record<string, Tree>): string[] {
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

/** Russian values equal to the English ones (English left on Russian pages), except `same`; and
 * entries of `same` that no longer exist. */
export function untranslated(en: Tree, ru: Tree, same: ReadonlySet<string>): { same: string[]; stale: string[] } {
  const eng = flatten(en);
  return {
    same: [...flatten(ru)].filter(([k, v]) => eng.get(k) === v && !same.has(k)).map(([k]) => k),
    stale: [...same].filter((k) => !eng.has(k)),
  };
}

/** Plural keys (`x_one`) lacking one of the four forms the translator picks from. */
export function missingPluralForms(...trees: Tree[]): string[] {
  const flat = trees.map((t) => flatten(t));
  const bases = new Set(flat.flatMap((m) => [...m.keys()]).filter((k) => /_(one|few|many|other)$/.test(k)).map((k) => k.replace(/_(one|few|many|other)$/, "")));
  return [...bases].flatMap((base) => ["one", "few", "many", "other"].map((f) => `${base}_${f}`)).filter((k) => flat.some((m) => !m.has(k)));
}
