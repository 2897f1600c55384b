import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { EntityMeta, Meta } from "@/api/meta";
import { fileEntity, field } from "@/test-meta";
import { installFakeXhr, sentRequest } from "@/test-xhr";
import { EntityForm } from "./form";

const f = field;

const files: EntityMeta = fileEntity([
    f("id", "uuid", { serverOwned: true }),
    f("adminTitle", "text", { required: true, maxLength: 500 }),
    f("file", "text", { required: true, format: "file", maxLength: 4000 }),
    f("alt", "text", { maxLength: 2000 }),
    f("width", "int"),
    f("mimeType", "text", { maxLength: 255 }),
  ]);
const meta: Meta = { languages: ["en", "ru"], modules: ["file-storage"], moduleLabels: {}, entities: [files] };
const STORED = `/files/${"ab".repeat(32)}.png`;

function form() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <EntityForm entity={files} meta={meta} lang="en" id={null} />
    </QueryClientProvider>,
  );
  return screen.getByRole("form", { name: "New file" });
}

describe("a form with a file field", () => {
  beforeEach(() => {
    installFakeXhr();
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: () => "blob:local", revokeObjectURL: () => undefined }));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sends the picked file as multipart with the other fields, shows the progress, then the stored file", async () => {
    const el = form();
    await userEvent.type(within(el).getByLabelText("Admin title"), "Forest");
    await userEvent.upload(within(el).getByLabelText("Upload a file"), new File(["png-bytes"], "forest.png", { type: "image/png" }));
    expect(within(el).getByTestId("file-preview-image")).toHaveAttribute("src", "blob:local");
    expect(within(el).getByTestId("file-pending")).toHaveTextContent("forest.png");
    await userEvent.click(within(el).getByRole("button", { name: "Create" }));

    const x = await sentRequest();
    expect(x.method).toBe("POST");
    expect(x.path).toBe("/api/file-storage/files");
    const sent = x.form;
    expect(sent.data).toMatchObject({ adminTitle: "Forest", file: "forest.png", alt: null });
    expect(sent.files.file?.name).toBe("forest.png");

    x.progress(50, 100);
    const bar = await within(el).findByRole("progressbar", { name: "Uploading forest.png" });
    await waitFor(() => expect(bar).toHaveAttribute("value", "0.5"));
    expect(within(el).getByText("50%")).toBeInTheDocument();
    x.progress(100, 100);
    await within(el).findByText("Processing…");

    x.respond(201, { data: { id: "0191e6a4-0000-7000-8000-000000000001", adminTitle: "Forest", file: STORED, alt: null, width: 640, mimeType: "image/png" } });
    await waitFor(() => expect(within(el).getByTestId("file-preview-image")).toHaveAttribute("src", STORED));
    expect(within(el).queryByRole("progressbar")).toBeNull();
    expect(within(el).queryByTestId("file-pending")).toBeNull();
    expect(within(el).getByLabelText("File")).toHaveValue(STORED);
    expect(within(el).getByRole("button", { name: "Saved" })).toBeInTheDocument();
  });

  it("says a file is too large at the field and under the form, and keeps the file to replace", async () => {
    const el = form();
    await userEvent.type(within(el).getByLabelText("Admin title"), "Big");
    await userEvent.upload(within(el).getByLabelText("Upload a file"), new File(["x"], "big.png", { type: "image/png" }));
    await userEvent.click(within(el).getByRole("button", { name: "Create" }));
    (await sentRequest()).respond(413, { status: 413, code: "payload_too_large", error: "file 'file' is larger than 20971520 bytes (STOA_UPLOAD_LIMIT)" });
    const said = "The file is too large for the server (file 'file' is larger than 20971520 bytes (STOA_UPLOAD_LIMIT)).";
    expect(await within(el).findByTestId("form-error")).toHaveTextContent(said);
    expect(within(el).getAllByText(said)).toHaveLength(2);
    expect(within(el).getByTestId("file-pending")).toHaveTextContent("big.png");
    // Replacing the file clears the field's message.
    await userEvent.upload(within(el).getByLabelText("Upload a file"), new File(["y"], "small.png", { type: "image/png" }));
    expect(within(el).getAllByText(said)).toHaveLength(1);
    expect(within(el).getByTestId("file-pending")).toHaveTextContent("small.png");
  });

  it("says which types are accepted on a 415", async () => {
    const el = form();
    await userEvent.type(within(el).getByLabelText("Admin title"), "Notes");
    await userEvent.upload(within(el).getByLabelText("Upload a file"), new File(["x"], "notes.png", { type: "image/png" }));
    await userEvent.click(within(el).getByRole("button", { name: "Create" }));
    (await sentRequest()).respond(415, { status: 415, code: "unsupported_media_type", error: "text/plain is not allowed", fields: { file: ["text/plain is not allowed"] } });
    expect(await within(el).findByTestId("form-error")).toHaveTextContent(/not accepted; use PNG, JPEG, WebP, GIF, AVIF, SVG, MP4, WebM or PDF/);
  });
});
