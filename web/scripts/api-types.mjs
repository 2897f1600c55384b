// Generates src/api/schema.d.ts from the OpenAPI document the `stoa` binary prints.
// `--check` fails when the committed file differs from what the binary describes now.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const here = fileURLToPath(new URL("..", import.meta.url));
const bin = process.env.STOA_BIN ? new URL(process.env.STOA_BIN, `file://${process.cwd()}/`).pathname : `${here}/../target/debug/stoa`;
const out = `${here}/src/api/schema.d.ts`;
const doc = JSON.parse(
  execFileSync(bin, ["openapi"], { maxBuffer: 256 * 1024 * 1024, env: { ...process.env, STOA_LOG: "warn" } }).toString(),
);
const ast = await openapiTS(doc, { alphabetize: true });
const text = `// Generated from /api/openapi.json by scripts/api-types.mjs. Do not edit.\n${astToString(ast)}`;
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(out, "utf8");
  } catch {
    current = "";
  }
  if (current !== text) {
    console.error("src/api/schema.d.ts is out of date: run `npm --prefix web run api:types` and commit it.");
    process.exit(1);
  }
  console.log("src/api/schema.d.ts is current");
} else {
  writeFileSync(out, text);
  console.log(`wrote ${out} (${text.length} bytes)`);
}
