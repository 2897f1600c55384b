import { reply, stubFetch } from "@/test-fetch";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import type { FieldKind, FieldMeta, Meta } from "@/api/meta";
import { BooleanWidget, EnumWidget, JsonWidget, NumberWidget, parseNumber, TextWidget } from "./basic";
import { DateTimeWidget, parseDateTime } from "./datetime";
import { FilePreview, FileWidget } from "./file";
import { FieldWidget, widgets } from "./index";
import { ReferenceWidget } from "./reference";
import { RichTextWidget } from "./rich-text";
import { TranslationsWidget } from "./translations";
import { Unparsed } from "../schema";
import type { Widget, WidgetProps } from "./types";

const meta: Meta = {
  languages: ["en", "ru"],
  modules: ["blog"],
  moduleLabels: {},
  entities: [
    {
      label: null,
      labelMany: null,
      group: null,
      rank: null,
      help: null,
      module: "blog",
      name: "category",
      route: "categories",
      path: "/api/blog/categories",
      kind: "model",
      table: "blog_category",
      titleField: "adminTitle",
      listColumns: ["adminTitle"],
      variants: [],
      ops: { create: true, update: true, delete: true, findOrCreate: false, bulk: false },
      fields: [],
      referencedBy: [],
    },
  ],
};

function field(kind: FieldKind, extra: Partial<FieldMeta> = {}): FieldMeta {
  return {
    label: null,
    help: null,
    valueLabels: null,
    name: "f",
    kind,
    required: false,
    default: null,
    unique: false,
    serverOwned: false,
    values: null,
    target: null,
    format: "none",
    maxLength: null,
    list: false,
    searchable: false,
    sortable: false,
    advanced: false,
    ...extra,
  };
}

/** Renders a widget holding its own value, and reports every change. */
function harness(W: Widget, f: FieldMeta, initial: unknown, extra: Partial<WidgetProps> = {}) {
  const changes: unknown[] = [];
  function Host() {
    const [v, setV] = useState<unknown>(initial);
    return (
      <>
        <label htmlFor="w">{f.name}</label>
        {W({ id: "w", field: f, value: v, meta, lang: "en", onChange: (x) => (changes.push(x), setV(x)), ...extra })}
        <output data-testid="value">{JSON.stringify(v ?? null)}</output>
      </>
    );
  }
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Host />
    </QueryClientProvider>,
  );
  return { changes, value: () => JSON.parse(screen.getByTestId("value").textContent ?? "null") as unknown };
}

describe("field widgets", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("every field kind has a widget", () => {
    const kinds: FieldKind[] = ["uuid", "text", "int", "decimal", "bool", "timestamp", "translations", "rich_text", "json", "enum", "reference"];
    for (const k of kinds) expect(typeof widgets[k]).toBe("function");
  });

  it("text edits the string and honours the maximum length", async () => {
    const h = harness(TextWidget, field("text", { maxLength: 5 }), "");
    await userEvent.type(screen.getByLabelText("f"), "abcdefgh");
    expect(h.value()).toBe("abcde");
  });

  it("number keeps empty as empty and passes min, max and step", async () => {
    expect(parseNumber("")).toBeNull();
    expect(parseNumber(" 42 ")).toBe(42);
    const h = harness((p) => NumberWidget({ ...p, min: 1, max: 9, step: 2 }), field("int"), 3);
    const input = screen.getByLabelText("f");
    expect(input).toHaveAttribute("min", "1");
    expect(input).toHaveAttribute("max", "9");
    expect(input).toHaveAttribute("step", "2");
    await userEvent.clear(input);
    expect(h.value()).toBeNull();
    await userEvent.type(input, "7");
    expect(h.value()).toBe(7);
  });

  it("boolean toggles", async () => {
    const h = harness(BooleanWidget, field("bool"), false);
    await userEvent.click(screen.getByLabelText("f"));
    expect(h.value()).toBe(true);
  });

  it("enum offers exactly the declared values by their words (and None when optional)", async () => {
    // `default` has words; `primary` (a module that brings none) reads as its key made readable.
    const h = harness(EnumWidget, field("enum", { values: ["default", "primary"], valueLabels: { default: { en: "Standard", ru: "Обычный" } } }), null);
    const options = screen.getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["None", "Standard", "Primary"]);
    await userEvent.selectOptions(screen.getByLabelText("f"), "primary");
    expect(h.value()).toBe("primary");
  });

  it("translations has a tab per language and edits each language", async () => {
    const h = harness(TranslationsWidget, field("translations"), { en: "Tree" });
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual(["en", "ru"]);
    await userEvent.type(screen.getByLabelText("F (en)"), "s");
    await userEvent.click(screen.getByRole("tab", { name: "ru" }));
    await userEvent.type(screen.getByLabelText("F (ru)"), "Дерево");
    expect(h.value()).toEqual({ en: "Trees", ru: "Дерево" });
  });

  it("rich text shows the stored TipTap document of each language", async () => {
    const doc = (text: string) => ({ type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text }] }] });
    harness(RichTextWidget, field("rich_text"), { en: doc("Hello world"), ru: doc("Привет") });
    await waitFor(() => expect(screen.getByLabelText("F (en)")).toHaveTextContent("Hello world"));
    await userEvent.click(screen.getByRole("tab", { name: "ru" }));
    await waitFor(() => expect(screen.getByLabelText("F (ru)")).toHaveTextContent("Привет"));
  });

  it("date-time parses DD.MM.YYYY HH:mm strictly", () => {
    expect(parseDateTime("05.03.2026 14:35")?.getMonth()).toBe(2);
    for (const bad of ["31.02.2026 10:00", "5.3.2026 14:35", "05.03.2026 24:00", "2026-03-05 14:35", "05.03.2026 14:35:00", ""]) {
      expect(parseDateTime(bad)).toBeNull();
    }
  });

  it("date-time offers hours 0–23 and minutes in 5-minute steps, and rejects bad text", async () => {
    const h = harness(DateTimeWidget, field("timestamp"), null);
    const hours = screen.getByLabelText("F: hours");
    const minutes = screen.getByLabelText("F: minutes");
    const opts = (el: HTMLElement) => [...el.querySelectorAll("option")].filter((o) => !o.disabled).map((o) => o.textContent);
    expect(opts(hours)).toHaveLength(24);
    expect(opts(hours)[0]).toBe("00");
    expect(opts(hours)[23]).toBe("23");
    expect(opts(minutes)).toEqual(["00", "05", "10", "15", "20", "25", "30", "35", "40", "45", "50", "55"]);
    const input = screen.getByLabelText("f");
    await userEvent.type(input, "99.99.2026 10:00");
    expect(screen.getByText("Use DD.MM.YYYY HH:mm")).toBeInTheDocument();
    // Held as unparsed text (which a form refuses), not left at the last date that parsed.
    expect(h.changes.at(-1)).toBeInstanceOf(Unparsed);
    expect(h.value()).toEqual({ text: "99.99.2026 10:00" });
    expect(input).toHaveValue("99.99.2026 10:00");
    await userEvent.clear(input);
    await userEvent.type(input, "05.03.2026 14:35");
    const stored = new Date(h.value() as string);
    expect([stored.getDate(), stored.getMonth(), stored.getHours(), stored.getMinutes()]).toEqual([5, 2, 14, 35]);
    await userEvent.selectOptions(minutes, "50");
    expect(new Date(h.value() as string).getMinutes()).toBe(50);
    expect(input).toHaveValue("05.03.2026 14:50");
  });

  it("file preview picks image or video by mime type", () => {
    const { rerender } = render(<FilePreview src="/files/a.bin" mimeType="video/mp4" />);
    expect(screen.getByTestId("file-preview-video")).toBeInTheDocument();
    rerender(<FilePreview src="/files/a.bin" mimeType="image/png" />);
    expect(screen.getByTestId("file-preview-image")).toBeInTheDocument();
    rerender(<FilePreview src="/files/clip.webm" />);
    expect(screen.getByTestId("file-preview-video")).toBeInTheDocument();
  });

  it("file widget previews a picked file at once", async () => {
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: () => "blob:local", revokeObjectURL: () => undefined }));
    const picked: (File | null)[] = [];
    harness((p) => FileWidget({ ...p, onFile: (f) => picked.push(f) }), field("text", { name: "file" }), "");
    await userEvent.upload(screen.getByLabelText("Upload a file"), new File(["x"], "clip.mp4", { type: "video/mp4" }));
    expect(screen.getByTestId("file-preview-video")).toHaveAttribute("src", "blob:local");
    expect(picked[0]?.name).toBe("clip.mp4");
  });

  it("file widget takes a file already in the media library, by its stored address", async () => {
    const { fileEntity, field: mf } = await import("@/test-meta");
    const files = fileEntity([mf("id", "uuid"), mf("adminTitle", "text"), mf("file", "text", { format: "file" }), mf("mimeType", "text")]);
    const stored = `/files/${"ab".repeat(32)}.png`;
    stubFetch(({ url }) => {
      if (url === "/api/meta") return reply(200, { data: { ...meta, entities: [...meta.entities, files] } });
      return reply(200, { data: [{ id: "f1", adminTitle: "forest.png", file: stored, mimeType: "image/png" }] }, { "x-total-count": "1" });
    });
    const h = harness(FileWidget, field("text", { name: "cover", format: "file" }), "");
    await userEvent.click(screen.getByRole("button", { name: "Choose from the media library" }));
    await userEvent.click(await screen.findByRole("button", { name: /forest\.png/ }));
    await waitFor(() => expect(h.value()).toBe(stored));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("file widget shows the stored file, replaces it with a picked one and removes both", async () => {
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: () => "blob:local", revokeObjectURL: () => undefined }));
    const stored = `/files/${"0f".repeat(32)}.png`;
    const picked: (File | null)[] = [];
    const h = harness((p) => FileWidget({ ...p, onFile: (f) => picked.push(f) }), field("text", { name: "file", format: "file" }), stored);
    const preview = screen.getByTestId("file-preview-image");
    expect(preview).toHaveAttribute("src", stored);
    expect(preview.getAttribute("srcset")).toContain(`${stored}?w=384&format=webp 384w`);
    await userEvent.upload(screen.getByLabelText("Upload a file"), new File(["x"], "new.webp", { type: "image/webp" }));
    expect(screen.getByTestId("file-preview-image")).toHaveAttribute("src", "blob:local");
    // The stored URL stays until the save replaces it.
    expect(h.value()).toBe(stored);
    expect(screen.getByRole("button", { name: "Replace file" })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Remove file" }));
    expect(picked.map((f) => f?.name ?? null)).toEqual(["new.webp", null]);
    expect(h.value()).toBe("");
    expect(screen.queryByTestId("file-preview-image")).toBeNull();
    expect(screen.getByRole("button", { name: "Choose file" })).toBeInTheDocument();
  });

  it("file widget takes a dropped file and shows a PDF as a link", async () => {
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: () => "blob:local", revokeObjectURL: () => undefined }));
    const picked: (File | null)[] = [];
    const h = harness((p) => FileWidget({ ...p, onFile: (f) => picked.push(f) }), field("text", { name: "file", format: "file" }), "");
    const zone = screen.getByRole("button", { name: "Choose file" }).parentElement!;
    fireEvent.drop(zone, { dataTransfer: { files: [new File(["%PDF"], "report.pdf", { type: "application/pdf" })], types: ["Files"] } });
    expect(picked[0]?.name).toBe("report.pdf");
    // A required file field is filled with the name until the server's URL replaces it.
    expect(h.value()).toBe("report.pdf");
    expect(screen.getByTestId("file-preview-other")).toHaveTextContent("report.pdf");
    cleanup();
    render(<FilePreview src={`/files/${"0f".repeat(32)}.pdf`} />);
    expect(screen.getByRole("link", { name: `${"0f".repeat(32)}.pdf` })).toHaveAttribute("href", `/files/${"0f".repeat(32)}.pdf`);
  });

  it("json holds text that is not JSON as unparsed (a form refuses it) and says so", () => {
    const h = harness(JsonWidget, field("json"), { a: 1 });
    const area = screen.getByLabelText("f");
    fireEvent.change(area, { target: { value: '{"a": 2' } });
    expect(screen.getByText("Not valid JSON")).toBeInTheDocument();
    expect(h.changes.at(-1)).toBeInstanceOf(Unparsed);
    expect(area).toHaveValue('{"a": 2');
    expect(area).toHaveAttribute("aria-invalid", "true");
    fireEvent.change(area, { target: { value: '{"a": 2}' } });
    expect(h.value()).toEqual({ a: 2 });
    expect(screen.queryByText("Not valid JSON")).toBeNull();
  });

  it("json shows no value as an empty box, not the word null, and an emptied box is no value", () => {
    const h = harness(JsonWidget, field("json"), null);
    const area = screen.getByLabelText("f");
    expect(area).toHaveValue("");
    fireEvent.change(area, { target: { value: '{"goal": 1000}' } });
    expect(h.value()).toEqual({ goal: 1000 });
    fireEvent.change(area, { target: { value: "  " } });
    expect(h.value()).toBeNull();
    expect(screen.queryByText("Not valid JSON")).toBeNull();
  });

  it("json and date-time leave the message to the form when it marks the field invalid", () => {
    harness(JsonWidget, field("json"), new Unparsed("{"), { invalid: true });
    expect(screen.getByLabelText("f")).toHaveValue("{");
    expect(screen.queryByText("Not valid JSON")).toBeNull();
  });

  it("reference searches the target entity on the server and stores the chosen id", async () => {
    const sent = stubFetch(() => reply(200, { data: [{ id: "0191e6a4-0000-7000-8000-000000000001", adminTitle: "Trees" }] }));
    const h = harness(ReferenceWidget, field("reference", { target: "blog.category" }), null);
    await userEvent.click(screen.getByLabelText("f"));
    await userEvent.type(screen.getByLabelText("Search: category"), "tr");
    await waitFor(() => expect(sent.some(({ url }) => url.startsWith("/api/blog/categories?") && url.includes("search=tr"))).toBe(true));
    await userEvent.click(await screen.findByRole("button", { name: /Trees/ }));
    expect(h.value()).toBe("0191e6a4-0000-7000-8000-000000000001");
  });

  it("fields declared as files get the file widget, other text fields the text widget", () => {
    const { unmount } = render(<FieldWidget id="x" field={field("text", { name: "file", format: "file" })} value="" onChange={() => {}} meta={meta} lang="en" />);
    expect(screen.getByLabelText("Upload a file")).toBeInTheDocument();
    unmount();
    render(<FieldWidget id="x" field={field("text", { name: "file" })} value="" onChange={() => {}} meta={meta} lang="en" />);
    expect(screen.queryByLabelText("File")).toBeNull();
  });
});
