// orval: the fetch client (no axios) from the document run.sh saved (paths from run.sh's env).
// The base URL is read at run time from STOA_BASE_URL.
const out = process.env.CLIENTS_OUT;
if (!out) throw new Error("CLIENTS_OUT is not set (run scripts/clients/run.sh)");

export default {
  stoa: {
    input: { target: `${out}/openapi.json` },
    output: {
      target: `${out}/orval/stoa.ts`,
      client: "fetch",
      mode: "single",
      baseUrl: { runtime: "process.env.STOA_BASE_URL" },
    },
  },
};
