import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { type Bundle, firstImageBlock, hasImage, type HostWidget, type Link, type Rec } from "@/site/content";
import { RegistryContext, type Registry } from "@/site/registry";
import { StoredFile } from "@/site/blocks";
import { PageView } from "@/site/page";
import { fileKind, IMAGE_WIDTHS, isSizable, Media, MediaPriority, sizedUrl, srcSetOf } from "./media";

const HASH = "3f".repeat(32);
const stored = (ext: string) => `/files/${HASH}.${ext}`;

describe("image sizes", () => {
  it("knows which files the server sizes: uploaded raster images only", () => {
    for (const ext of ["png", "jpg", "jpeg", "webp", "gif"]) expect(isSizable(stored(ext))).toBe(true);
    expect(isSizable(stored("svg"))).toBe(false);
    expect(isSizable(stored("mp4"))).toBe(false);
    expect(isSizable("/files/demo/hero.png")).toBe(false);
    expect(isSizable(`/files/${HASH.slice(2)}.png`)).toBe(false);
    expect(isSizable(`${stored("png")}?w=64&format=webp`)).toBe(false);
    expect(isSizable(`https://cdn.example${stored("png")}`)).toBe(false);
    expect(sizedUrl(stored("png"), 640)).toBe(`${stored("png")}?w=640&format=webp`);
    expect(sizedUrl(stored("jpg"), 640)).toBe(`${stored("jpg")}?w=640&format=jpeg`);
  });

  it("offers every allowed width (WebP for graphics, JPEG for photos) when the image's width is unknown", () => {
    const set = srcSetOf(stored("png"));
    expect(set?.split(", ")).toEqual(IMAGE_WIDTHS.map((w) => `${stored("png")}?w=${w}&format=webp ${w}w`));
    expect(srcSetOf(stored("jpg"), 0)).toBe(set?.replaceAll(".png", ".jpg").replaceAll("format=webp", "format=jpeg"));
  });

  it("stops below the image's own width and ends with the original at that width", () => {
    expect(srcSetOf(stored("jpg"), 700)?.split(", ")).toEqual([
      ...[64, 128, 256, 384, 640].map((w) => `${stored("jpg")}?w=${w}&format=jpeg ${w}w`),
      `${stored("jpg")} 700w`,
    ]);
    expect(srcSetOf(stored("png"), 50)).toBe(`${stored("png")} 50w`);
    // Wider than the largest width: the original is not offered (1920 is enough).
    const huge = srcSetOf(stored("png"), 4000)?.split(", ") ?? [];
    expect(huge).toHaveLength(IMAGE_WIDTHS.length);
    expect(huge.at(-1)).toBe(`${stored("png")}?w=1920&format=webp 1920w`);
  });

  it("leaves SVG, video and the demo's files alone", () => {
    expect(srcSetOf(stored("svg"))).toBeUndefined();
    expect(srcSetOf("/files/demo/hero.svg", 1200)).toBeUndefined();
    expect(srcSetOf(stored("webm"))).toBeUndefined();
  });

  it("tells images, videos and other files apart", () => {
    expect(fileKind(stored("png"))).toBe("image");
    expect(fileKind("/files/demo/hero.svg")).toBe("image");
    expect(fileKind(stored("webm"))).toBe("video");
    expect(fileKind(stored("pdf"))).toBe("other");
    expect(fileKind("blob:x", "video/mp4")).toBe("video");
    expect(fileKind("blob:x", "application/pdf")).toBe("other");
  });
});

describe("Media", () => {
  it("gives a stored raster image a srcset, sizes (100vw by default) and its own size; lazy", () => {
    render(<Media src={stored("png")} alt="A forest" width={1000} height={500} testId="m" />);
    const img = screen.getByRole("img", { name: "A forest" });
    expect(img).toHaveAttribute("src", stored("png"));
    expect(img.getAttribute("srcset")).toContain(`${stored("png")}?w=800&format=webp 800w`);
    expect(img).toHaveAttribute("sizes", "100vw");
    expect(img).toHaveAttribute("width", "1000");
    expect(img).toHaveAttribute("height", "500");
    expect(img).toHaveAttribute("loading", "lazy");
    expect(img).not.toHaveAttribute("fetchpriority");
  });

  it("takes the caller's sizes, and loads at once with priority", () => {
    render(<Media src={stored("webp")} alt="Hero" sizes="(min-width: 1024px) 50vw, 100vw" priority />);
    const img = screen.getByRole("img", { name: "Hero" });
    expect(img).toHaveAttribute("sizes", "(min-width: 1024px) 50vw, 100vw");
    expect(img).toHaveAttribute("loading", "eager");
    expect(img).toHaveAttribute("fetchpriority", "high");
  });

  it("gives SVG no srcset and no sizes, and keeps video as it is", () => {
    const { rerender } = render(<Media src="/files/demo/tree.svg" alt="Tree" width={0} height={0} />);
    const img = screen.getByRole("img", { name: "Tree" });
    expect(img).not.toHaveAttribute("srcset");
    expect(img).not.toHaveAttribute("sizes");
    expect(img).not.toHaveAttribute("width");
    rerender(<Media src={stored("mp4")} testId="v" />);
    const video = screen.getByTestId("v-video");
    expect(video).toHaveAttribute("src", stored("mp4"));
    expect(video).not.toHaveAttribute("loading");
  });

  it("inside the page's first image block loads at once unless told otherwise", () => {
    render(
      <MediaPriority.Provider value>
        <Media src={stored("png")} alt="first" />
        <Media src={stored("png")} alt="opted out" priority={false} />
      </MediaPriority.Provider>,
    );
    expect(screen.getByRole("img", { name: "first" })).toHaveAttribute("loading", "eager");
    expect(screen.getByRole("img", { name: "opted out" })).toHaveAttribute("loading", "lazy");
  });
});

const file = (id: string, url: string, extra: Partial<Rec> = {}): Rec => ({ id, _entity: "file-storage.file", file: url, mimeType: url.endsWith(".svg") ? "image/svg+xml" : "image/png", alt: id, ...extra });
const link = (to: Rec): Link => ({ id: `l-${to.id}`, _entity: "test.link", _to: to });
const host = (id: string, widget: Rec): HostWidget => ({ id, _entity: "host.widget", _externals: [{ id: `e-${id}`, _entity: "host.widgets-to-external-widgets", module: "test", widget }] });

describe("the page's first image", () => {
  const text = host("text", { id: "t", _entity: "test.widget", variant: "default" });
  const hero = host("hero", { id: "h", _entity: "test.widget", variant: "default", _rel: { "widgets-to-file-storage-module-files": [link(file("hero", stored("png"), { width: 1200, height: 800 }))] } });
  const gallery = host("gallery", { id: "g", _entity: "test.widget", variant: "default", _rel: { "widgets-to-file-storage-module-files": [link(file("gallery", stored("jpg")))] } });

  it("finds the first widget that shows an image, however deep", () => {
    expect(hasImage(text._externals[0]?.widget)).toBe(false);
    expect(hasImage({ id: "v", _entity: "test.widget", _rel: { "x-to-files": [link(file("clip", stored("mp4"), { mimeType: "video/mp4" }))] } })).toBe(false);
    const deep: Rec = { id: "list", _entity: "test.widget", _list: [{ id: "item", _entity: "test.item", _rel: { "items-to-features": [link({ id: "f", _entity: "test.feature", _rel: { "features-to-files": [link(file("deep", "/files/demo/tree.svg"))] } })] } }] };
    expect(hasImage(deep)).toBe(true);
    expect(firstImageBlock([text, hero, gallery])).toBe("hero-e-hero");
    expect(firstImageBlock([text])).toBeNull();
  });

  it("renders the hero's image eagerly and the rest lazily", () => {
    const registry: Registry = {
      test: {
        default: ({ data }) => (
          <>
            {Object.values(data._rel ?? {})
              .flat()
              .map((l) => (
                <StoredFile key={l.id} file={l._to} />
              ))}
          </>
        ),
      },
    };
    const bundle: Bundle = { page: { id: "p", _entity: "host.page" }, url: "/", meta: {}, metaByLanguage: {}, layouts: [], widgets: [text, hero, gallery] };
    render(
      <MemoryRouter>
        <RegistryContext.Provider value={registry}>
          <PageView bundle={bundle} lang="en" />
        </RegistryContext.Provider>
      </MemoryRouter>,
    );
    const first = screen.getByRole("img", { name: "hero" });
    expect(first).toHaveAttribute("loading", "eager");
    expect(first).toHaveAttribute("fetchpriority", "high");
    expect(first).toHaveAttribute("width", "1200");
    expect(first).toHaveAttribute("height", "800");
    expect(screen.getByRole("img", { name: "gallery" })).toHaveAttribute("loading", "lazy");
  });
});
