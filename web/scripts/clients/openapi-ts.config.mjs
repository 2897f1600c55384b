// @hey-api/openapi-ts: a fetch client from the document run.sh saved (paths from run.sh's env).
import { defineConfig } from "@hey-api/openapi-ts";

const out = process.env.CLIENTS_OUT;
if (!out) throw new Error("CLIENTS_OUT is not set (run scripts/clients/run.sh)");

export default defineConfig({
  input: `${out}/openapi.json`,
  output: { path: `${out}/heyapi` },
  logs: { path: `${out}/logs` },
  // Report what is wrong in the document (off by default).
  parser: { validate_EXPERIMENTAL: "warn" },
  plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
});
