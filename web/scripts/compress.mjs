// Writes `<file>.br` and `<file>.gz` beside every text asset of the build (`dist/assets`), at the
// highest levels: `stoa` sends them as they are to clients that accept them.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dir = new URL("../dist/assets/", import.meta.url).pathname;
const TEXT = /\.(js|mjs|css|svg|json|txt|html|map)$/;
let files = 0;
let raw = 0;
let br = 0;
for (const name of readdirSync(dir)) {
  if (!TEXT.test(name)) continue;
  const path = join(dir, name);
  if (!statSync(path).isFile()) continue;
  const bytes = readFileSync(path);
  if (bytes.length < 1024) continue;
  const b = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  writeFileSync(`${path}.br`, b);
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  files++;
  raw += bytes.length;
  br += b.length;
}
console.log(`compressed ${files} assets: ${(raw / 1024).toFixed(0)} KiB → ${(br / 1024).toFixed(0)} KiB brotli`);
