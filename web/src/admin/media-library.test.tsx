import { reply, stubFetch } from "@/test-fetch";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { EntityMeta, Meta } from "@/api/meta";
import { fileEntity, field } from "@/test-meta";
import { installFakeXhr, sentRequest } from "@/test-xhr";
import { fileAlt, fileName, MediaLibrary } from "./media-library";

const f = field;

const entity: EntityMeta = fileEntity([f("id", "uuid", { serverOwned: true }), f("createdAt", "timestamp", { serverOwned: true }), f("adminTitle", "text", { required: true }), f("file", "text", { required: true, format: "file" }), f("alt", "text"), f("mimeType", "text")]);
const meta: Meta = { languages: ["en", "ru"], modules: ["file-storage"], moduleLabels: {}, entities: [entity] };
const hex = (c: string) => c.repeat(64);
const rows = [
  { id: "1", adminTitle: "forest.png", file: `/files/${hex("a")}.png`, alt: "A pine forest", mimeType: "image/png" },
  { id: "2", adminTitle: "logo.svg", file: "/files/demo/logo.svg", alt: null, mimeType: "image/svg+xml" },
  { id: "3", adminTitle: "clip.mp4", file: `/files/${hex("b")}.mp4`, alt: null, mimeType: "video/mp4" },
  { id: "4", adminTitle: "report.pdf", file: `/files/${hex("c")}.pdf`, alt: null, mimeType: "application/pdf" },
];

function serve(requests: { method: string; url: string }[]) {
  const sent = stubFetch(({ method, url }) => {
    requests.push({ method, url });
    if (url === "/api/meta") return reply(200, { data: meta });
    if (method === "DELETE") return reply(200, { data: rows[0] });
    return reply(200, { data: rows }, { "x-total-count": "4" });
  });
  return sent;
}

function library() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MediaLibrary lang="en" />
    </QueryClientProvider>,
  );
}

describe("the media library", () => {
  beforeEach(() => {
    installFakeXhr();
  });
  afterEach(() => vi.unstubAllGlobals());

  it("names files and describes their pictures", () => {
    expect(fileName({ id: "1", adminTitle: "", originalName: "a.png", file: "/files/x.png" })).toBe("a.png");
    expect(fileName({ id: "1", file: "/files/x.png" })).toBe("x.png");
    expect(fileAlt({ id: "1", alt: "A tree", originalName: "a.png" })).toBe("A tree");
    expect(fileAlt({ id: "1", alt: "", originalName: "a.png", adminTitle: "Title" })).toBe("a.png");
  });

  it("shows raster images as 256-pixel WebP thumbnails, SVG as it is, video and PDF as icons, newest first", async () => {
    const requests: { method: string; url: string }[] = [];
    serve(requests);
    library();
    const list = await screen.findByRole("list", { name: "Files" });
    await within(list).findByRole("img", { name: "A pine forest" });
    expect(within(list).getByRole("img", { name: "A pine forest" })).toHaveAttribute("src", `/files/${hex("a")}.png?w=256&format=webp`);
    expect(within(list).getByRole("img", { name: "logo.svg" })).toHaveAttribute("src", "/files/demo/logo.svg");
    expect(within(list).getAllByRole("img")).toHaveLength(2);
    const tile = (name: string) => within(list).getByRole("button", { name: `Edit ${name}` }).closest("li") as HTMLElement;
    expect(tile("clip.mp4")).toHaveTextContent("Video");
    expect(tile("report.pdf")).toHaveTextContent("PDF");
    expect(within(tile("forest.png")).getByRole("img", { name: "A pine forest" })).toBeInTheDocument();
    const listed = requests.find((r) => r.url.startsWith("/api/file-storage/files?"))?.url ?? "";
    // The sort goes as JSON (the find routes' documented form).
    expect(new URL(listed, "http://x").searchParams.get("orderBy")).toBe('[{"column":"createdAt","method":"desc"}]');
    expect(screen.getByText("Page 1 of 1")).toBeInTheDocument();
  });

  it("uploads several files at once, each with its own progress, and lists them", async () => {
    const requests: { method: string; url: string }[] = [];
    serve(requests);
    library();
    await screen.findByRole("list", { name: "Files" });
    await userEvent.upload(screen.getByLabelText("Files to upload"), [new File(["a"], "one.png", { type: "image/png" }), new File(["bb"], "two.jpg", { type: "image/jpeg" })]);
    const first = await sentRequest(1);
    const second = await sentRequest(2);
    expect([first.form.files.file?.name, second.form.files.file?.name]).toEqual(["one.png", "two.jpg"]);
    expect(first.form.data).toEqual({ adminTitle: "one.png" });
    first.progress(25, 100);
    second.progress(75, 100);
    const uploads = screen.getByRole("list", { name: "Uploads" });
    await waitFor(() => expect(within(uploads).getByRole("progressbar", { name: "Uploading one.png" })).toHaveAttribute("value", "0.25"));
    expect(within(uploads).getByRole("progressbar", { name: "Uploading two.jpg" })).toHaveAttribute("value", "0.75");
    const before = requests.length;
    first.respond(201, { data: { id: "9", file: `/files/${hex("d")}.png` } });
    await waitFor(() => expect(within(uploads).queryByText("one.png")).toBeNull());
    second.respond(415, { status: 415, code: "unsupported_media_type", error: "image/jpeg is not allowed" });
    await within(uploads).findByRole("alert");
    expect(within(uploads).getByRole("alert")).toHaveTextContent("two.jpg was not uploaded: This type of file is not accepted");
    // The list was read again for the new file.
    expect(requests.slice(before).some((r) => r.url.startsWith("/api/file-storage/files?"))).toBe(true);
    expect(screen.getByText("1 file uploaded")).toBeInTheDocument();
    await userEvent.click(within(uploads).getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("list", { name: "Uploads" })).toBeNull();
  });

  it("uploads a picture pasted on the library (a screenshot gets a name), and leaves pasted text alone", async () => {
    const requests: { method: string; url: string }[] = [];
    serve(requests);
    library();
    await screen.findByRole("list", { name: "Files" });
    const paste = (files: File[]) => {
      const e = new Event("paste", { bubbles: true, cancelable: true }) as Event & { clipboardData: { files: File[] } };
      Object.defineProperty(e, "clipboardData", { value: { files } });
      document.dispatchEvent(e);
      return e;
    };
    expect(paste([]).defaultPrevented).toBe(false);
    const e = paste([new File(["png"], "image.png", { type: "image/png" })]);
    expect(e.defaultPrevented).toBe(true);
    const sent = await sentRequest(1);
    expect(sent.form.files.file?.name).toMatch(/^pasted-\d+-1\.png$/);
    expect(String((sent.form.data as { adminTitle?: unknown }).adminTitle)).toMatch(/^pasted-/);
  });

  it("deletes a file after asking, and opens a file's form", async () => {
    const requests: { method: string; url: string }[] = [];
    serve(requests);
    library();
    await userEvent.click(await screen.findByRole("button", { name: "Delete forest.png" }));
    const ask = screen.getByRole("alertdialog", { name: "Delete forest.png?" });
    await userEvent.click(within(ask).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(requests).toContainEqual({ method: "DELETE", url: "/api/file-storage/files/1" }));
    await userEvent.click(screen.getByRole("button", { name: "Edit forest.png" }));
    expect(await screen.findByRole("dialog", { name: "Edit file" })).toBeInTheDocument();
  });
});
