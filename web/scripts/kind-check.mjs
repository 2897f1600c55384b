// Proves the admin's types follow the server's field kinds: copies the project, adds a field kind
// the admin does not handle to the generated MetaField schema, and expects `tsc` to fail on it.
// Run by `make test` after the type check.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "stoa-kind-check-"));
try {
  for (const f of ["src", "tsconfig.json"]) cpSync(join(here, f), join(dir, f), { recursive: true });
  for (const f of ["tsconfig.app.json", "tsconfig.node.json", "vite.config.ts", "e2e"]) {
    try {
      cpSync(join(here, f), join(dir, f), { recursive: true });
    } catch {
      // optional
    }
  }
  symlinkSync(join(here, "node_modules"), join(dir, "node_modules"), "dir");
  const schema = join(dir, "src/api/schema.d.ts");
  const text = readFileSync(schema, "utf8");
  const start = text.indexOf("MetaField: {");
  const kind = start < 0 ? -1 : text.indexOf('kind: "', start);
  if (kind < 0) throw new Error("MetaField.kind not found in src/api/schema.d.ts");
  writeFileSync(schema, `${text.slice(0, kind)}kind: "fake_kind" | ${text.slice(kind + "kind: ".length)}`);
  let failed = false;
  let output = "";
  try {
    execFileSync(join(here, "node_modules/.bin/tsc"), ["--noEmit", "-p", "tsconfig.json"], { cwd: dir, stdio: "pipe" });
  } catch (e) {
    failed = true;
    output = `${e.stdout ?? ""}`;
  }
  if (!failed) {
    console.error("kind-check: tsc accepted a field kind the admin does not handle");
    process.exit(1);
  }
  const where = [...new Set(output.split("\n").filter((l) => l.includes("error TS")).map((l) => l.split("(")[0]))];
  console.log(`kind-check: an unhandled field kind fails tsc in ${where.join(", ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
