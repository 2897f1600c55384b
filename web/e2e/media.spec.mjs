// The media library and the file widget, driven through a real browser against a real server:
// an upload comes back byte for byte from /files/, its thumbnail is a server-made WebP, and a
// replacement through the entity form is stored and previewed.
import { deflateSync } from "node:zlib";
import { ADMIN, expect, screen, signIn, watchedContext } from "./harness.mjs";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid RGB PNG of `width`×`height`: a vertical gradient from `top` to `bottom` (so it is not trivially one colour). */
export function makePng(width, height, top, bottom) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    const t = y / Math.max(1, height - 1);
    const rgb = top.map((c, i) => Math.round(c + (bottom[i] - c) * t));
    for (let x = 0; x < width; x++) raw.set(rgb, row + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

// Both wider than the widths the admin asks for (256 for tiles, 384 for the form's preview).
const FIRST = { name: "e2e-green.png", mimeType: "image/png", buffer: makePng(480, 320, [16, 120, 60], [200, 240, 160]) };
const SECOND = { name: "e2e-blue.png", mimeType: "image/png", buffer: makePng(400, 300, [20, 40, 160], [170, 200, 250]) };
const STORED = /^\/files\/[0-9a-f]{64}\.png$/;

/** The bytes the server serves at `url` (the context's request API: no page console noise). */
async function served(page, url) {
  const r = await page.request.get(url);
  expect(r.status() === 200, `GET ${url} answered ${r.status()}`);
  return { body: await r.body(), type: r.headers()["content-type"] ?? "" };
}

/** Waits for an image to have loaded, and gives its natural size. */
async function loaded(locator) {
  const handle = await locator.elementHandle();
  await locator.page().waitForFunction((img) => img.complete && img.naturalWidth > 0, handle);
  return handle.evaluate((img) => ({ width: img.naturalWidth, height: img.naturalHeight, src: img.getAttribute("src") }));
}

export const mediaSpecs = [
  [
    "the admin uploads a PNG in the media library, sees its WebP thumbnail, opens it, and /files/ serves the same bytes",
    async (stack, s) => {
      if (!s.w) {
        // Run on its own (`node e2e/run.mjs media`): sign in first.
        s.w = await watchedContext(stack);
        await signIn(s.w.page, ADMIN, "/admin");
        await s.w.page.getByRole("navigation", { name: "Sections" }).waitFor();
      }
      const { page } = s.w;
      await page.goto("/admin/file-storage/file");
      const library = page.getByTestId("media-library");
      await library.getByRole("heading", { name: "Media library" }).waitFor();
      // The generic table stays one click away.
      await page.getByRole("button", { name: "Table", exact: true }).waitFor();
      await screen(page, "media-library");

      await library.getByLabel("Files to upload", { exact: true }).setInputFiles(FIRST);
      const open = library.getByRole("button", { name: `Edit ${FIRST.name}`, exact: true });
      await open.waitFor();
      await library.getByTestId("media-uploads").waitFor({ state: "detached" });
      const tile = library.getByTestId("media-tile").filter({ has: page.getByRole("button", { name: `Edit ${FIRST.name}`, exact: true }) });
      const thumb = tile.getByRole("img", { name: FIRST.name, exact: true });
      const shown = await loaded(thumb);
      expect(/^\/files\/[0-9a-f]{64}\.png\?w=256&format=webp$/.test(shown.src ?? ""), `the thumbnail asks for a 256-pixel WebP, got ${shown.src}`);
      expect(shown.width === 256, `the thumbnail is 256 pixels wide, got ${shown.width}`);
      const thumbFile = await served(page, shown.src);
      expect(thumbFile.type.startsWith("image/webp"), `the thumbnail is served as WebP, got ${thumbFile.type}`);
      await screen(page, "media-library-uploaded");

      // What the server learnt from the bytes.
      const id = await tile.getAttribute("data-row");
      const row = (await (await page.request.get(`/api/file-storage/files/${id}`)).json()).data;
      expect(STORED.test(row.file), `the stored URL is /files/<sha-256>.png, got ${row.file}`);
      expect(row.mimeType === "image/png" && row.width === 480 && row.height === 320 && row.size === FIRST.buffer.length, `the row describes the PNG: ${JSON.stringify(row)}`);

      await open.click();
      const dialog = page.getByRole("dialog", { name: "Edit file" });
      await dialog.waitFor();
      const url = await dialog.getByLabel("File", { exact: true }).inputValue();
      expect(url === row.file, `the form holds the stored URL ${row.file}, got ${url}`);
      const preview = dialog.getByTestId("file-preview-image");
      expect((await loaded(preview)).src === url, "the form previews the stored file");
      const original = await served(page, url);
      expect(original.body.equals(FIRST.buffer), `GET ${url} gives back the uploaded bytes (${original.body.length} of ${FIRST.buffer.length})`);
      expect(original.type.startsWith("image/png"), `the stored file is served as image/png, got ${original.type}`);
      s.media = { id, first: url };
    },
  ],
  [
    "the admin replaces the file through the form's file widget and sees the new file, then deletes it from the library",
    async (_stack, s) => {
      const { page } = s.w;
      const dialog = page.getByRole("dialog", { name: "Edit file" });
      await dialog.getByLabel("Upload a file", { exact: true }).setInputFiles(SECOND);
      const preview = dialog.getByTestId("file-preview-image");
      expect(((await loaded(preview)).src ?? "").startsWith("blob:"), "the picked file is previewed at once");
      await dialog.getByTestId("file-pending").getByText(SECOND.name).waitFor();
      await screen(page, "media-file-replace");
      await dialog.locator("form button[type=submit]").first().click();
      await dialog.locator("form button[data-status=success]").first().waitFor();
      await dialog.getByTestId("file-pending").waitFor({ state: "detached" });
      const url = await dialog.getByLabel("File", { exact: true }).inputValue();
      expect(STORED.test(url) && url !== s.media.first, `the field holds the new stored URL, got ${url} (was ${s.media.first})`);
      const now = await loaded(preview);
      expect(now.src === url, `the preview shows the stored file ${url}, got ${now.src}`);
      const replaced = await served(page, url);
      expect(replaced.body.equals(SECOND.buffer), `GET ${url} gives back the replacement's bytes`);
      const row = (await (await page.request.get(`/api/file-storage/files/${s.media.id}`)).json()).data;
      expect(row.file === url && row.width === 400 && row.height === 300 && row.size === SECOND.buffer.length, `the row describes the replacement: ${JSON.stringify(row)}`);
      await screen(page, "media-file-replaced");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });

      // The library's tile shows the new file; deleting asks first.
      const library = page.getByTestId("media-library");
      const tile = library.locator(`[data-testid=media-tile][data-row="${s.media.id}"]`);
      await tile.locator(`img[src^="${url}?w=256"]`).waitFor();
      const name = FIRST.name; // the title is kept; only the file changed
      await tile.getByRole("button", { name: `Delete ${name}`, exact: true }).click();
      const confirm = page.getByRole("alertdialog", { name: `Delete ${name}?` });
      await confirm.waitFor();
      await confirm.getByRole("button", { name: "Delete" }).click();
      await tile.waitFor({ state: "detached" });
      const gone = (await page.request.get(`/api/file-storage/files/${s.media.id}`)).status();
      expect(gone === 404, `the deleted file's row answers 404, got ${gone}`);
    },
  ],
];
