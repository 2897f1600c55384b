// Runs the npm scripts named on the command line side by side, as many at once as there are
// cores, in the order given. Each one's output is kept and printed whole when it ends, with its
// time; the exit status is non-zero when any of them failed. `make test` runs the web's
// independent checks this way: each is mostly one Node process, and one after another they left a
// core idle for minutes.
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error("usage: node scripts/checks.mjs <npm script>...");
  process.exit(2);
}
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs `npm run <name>`: whether it passed, and its output. */
function run(name) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => out.push(b));
    const done = (ok, why) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`── ${name}: ${ok ? "passed" : `FAILED (${why})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(out));
      resolve(ok);
    };
    child.on("error", (e) => done(false, e.message));
    child.on("close", (code, signal) => done(code === 0, signal ? `killed by ${signal}` : `exit ${code}`));
  });
}

let next = 0;
let failed = 0;
async function worker() {
  while (next < names.length) {
    const name = names[next++];
    if (!(await run(name))) failed++;
  }
}
await Promise.all(Array.from({ length: Math.min(availableParallelism(), names.length) }, worker));
if (failed) {
  console.error(`${failed} of ${names.length} checks failed`);
  process.exit(1);
}
