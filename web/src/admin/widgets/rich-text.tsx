import { lazy, Suspense, useState } from "react";
import { Bold, Heading, Image as ImageIcon, Italic, Link as LinkIcon, List, ListOrdered, Quote, Redo2, Undo2, Video } from "lucide-react";
import { Heading as HeadingNode } from "@tiptap/extension-heading";
import { Image } from "@tiptap/extension-image";
import { type Editor as TiptapEditor, EditorContent, mergeAttributes, Node as TiptapNode, useEditor, useEditorState } from "@tiptap/react";
import { StarterKit } from "@tiptap/starter-kit";
import type { JSONContent } from "@tiptap/react";
import { fieldName } from "@/api/meta";
import { useEditorT } from "@/admin/editor-i18n";
import { fileUrl } from "@/site/content";
import { RICH_STYLE as STYLE } from "@/site/rich-text";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { Input } from "@/ui/input";
import { cn } from "@/ui/cn";
import { LanguageTabs } from "./language-tabs";
import type { WidgetProps } from "./types";

// The media library loads with the picker, not with every form.
const MediaPicker = lazy(() => import("../media-library").then((m) => ({ default: m.MediaLibrary })));

const EMPTY: JSONContent = { type: "doc", content: [{ type: "paragraph" }] };

/** A link to a video (the site shows it as a link that opens the video; no third-party frame). */
const VideoNode = TiptapNode.create({
  name: "video",
  group: "block",
  atom: true,
  addAttributes: () => ({ src: { default: null } }),
  parseHTML: () => [{ tag: "p[data-video]" }],
  renderHTML: ({ HTMLAttributes }) => ["p", mergeAttributes({ "data-video": "", class: `${STYLE.figure} font-medium underline` }), `▶ ${String(HTMLAttributes.src ?? "")}`],
});

/** The blocks as the site shows them (`RICH_STYLE`): an editor sees the page's headings, lists and quotes. */
const extensions = [
  StarterKit.configure({
    heading: false,
    paragraph: { HTMLAttributes: { class: STYLE.p } },
    bulletList: { HTMLAttributes: { class: STYLE.ul } },
    orderedList: { HTMLAttributes: { class: STYLE.ol } },
    listItem: { HTMLAttributes: { class: STYLE.li } },
    blockquote: { HTMLAttributes: { class: STYLE.blockquote } },
    horizontalRule: { HTMLAttributes: { class: STYLE.hr } },
    codeBlock: { HTMLAttributes: { class: STYLE.pre } },
    code: { HTMLAttributes: { class: STYLE.code } },
    link: { openOnClick: false, autolink: false, HTMLAttributes: { class: STYLE.a, rel: null, target: null } },
  }),
  // Each level as the site draws it (the extension alone gives all levels one class).
  HeadingNode.extend({
    renderHTML({ node, HTMLAttributes }) {
      const level = ([1, 2, 3, 4, 5, 6] as const).find((l) => l === node.attrs.level) ?? 2;
      return [`h${level}`, mergeAttributes(HTMLAttributes, { class: STYLE[`h${level}`] }), 0];
    },
  }).configure({ levels: [1, 2, 3, 4, 5, 6] }),
  Image.configure({ HTMLAttributes: { class: cn(STYLE.img, "mt-[1.2em] max-h-72 w-auto object-contain first:mt-0") } }),
  VideoNode,
];

type Block = "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6";

function ToolButton({ label, active, disabled, onClick, children }: { label: string; active?: boolean; disabled?: boolean; onClick: () => void; children: React.ReactNode }) {
  return (
    <Button type="button" size="icon" variant={active ? "default" : "ghost"} className="h-8 w-8" aria-label={label} title={label} aria-pressed={active} disabled={disabled} onMouseDown={(e) => e.preventDefault()} onClick={onClick}>
      {children}
    </Button>
  );
}

/** An `https:` or site address, or null. */
export function linkTarget(raw: string): string | null {
  const s = raw.trim();
  if (!s) return null;
  if (/^(https?:|mailto:|tel:|\/|#)/i.test(s)) return s;
  if (/^[\w-]+(\.[\w-]+)+(\/|$)/.test(s)) return `https://${s}`;
  return null;
}

function Toolbar({ editor, lang, label }: { editor: TiptapEditor; lang: string; label: string }) {
  const t = useEditorT();
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      block: ([1, 2, 3, 4, 5, 6].find((l) => e.isActive("heading", { level: l })) ? `h${[1, 2, 3, 4, 5, 6].find((l) => e.isActive("heading", { level: l }))}` : "p") as Block,
      bold: e.isActive("bold"),
      italic: e.isActive("italic"),
      link: e.isActive("link"),
      bullet: e.isActive("bulletList"),
      ordered: e.isActive("orderedList"),
      quote: e.isActive("blockquote"),
      undo: e.can().undo(),
      redo: e.can().redo(),
    }),
  });
  const [asking, setAsking] = useState<null | "link" | "video">(null);
  const [address, setAddress] = useState("");
  const [picking, setPicking] = useState(false);
  const chain = () => editor.chain().focus();
  const setBlock = (b: Block) => (b === "p" ? chain().setParagraph().run() : chain().setHeading({ level: Number(b.slice(1)) as 1 | 2 | 3 | 4 | 5 | 6 }).run());
  const ask = (what: "link" | "video") => {
    setAddress(what === "link" ? String(editor.getAttributes("link").href ?? "") : "");
    setAsking(what);
  };
  const apply = () => {
    const target = linkTarget(address);
    // Applied without taking the focus: the Enter that applies it would reach the text otherwise
    // (and replace the selection with a new line). The text gets the focus back once it is done.
    const quiet = () => editor.chain();
    if (asking === "link") {
      if (!address.trim()) quiet().extendMarkRange("link").unsetLink().run();
      // Linked, the caret goes after the link (typing on does not replace the linked words).
      else if (target) {
        quiet().extendMarkRange("link").setLink({ href: target }).run();
        editor.commands.setTextSelection(editor.state.selection.to);
      }
      else return;
    } else if (asking === "video" && target && /^https?:/i.test(target)) {
      quiet().insertContent({ type: "video", attrs: { src: target } }).run();
    } else return;
    setAsking(null);
    // After the address row is gone (and the dialog's focus trap has looked after its focus).
    setTimeout(() => requestAnimationFrame(() => editor.view.focus()), 0);
  };
  return (
    <div className="grid gap-1">
      <div role="toolbar" aria-label={t("ed.rich.toolbar", { field: label })} className="flex flex-wrap items-center gap-0.5 rounded-t-md border border-b-0 border-border bg-muted/60 p-1">
        <label className="sr-only" htmlFor={`${label}-block`}>
          {t("ed.rich.block")}
        </label>
        <Heading aria-hidden className="ml-1 h-4 w-4 text-neutral-600" />
        <select id={`${label}-block`} className="h-8 rounded-md border border-border bg-white px-1 text-sm" value={state.block} onChange={(e) => setBlock(e.target.value as Block)}>
          <option value="p">{t("ed.rich.paragraph")}</option>
          {[1, 2, 3, 4, 5, 6].map((l) => (
            <option key={l} value={`h${l}`}>
              {t("ed.rich.heading", { level: l })}
            </option>
          ))}
        </select>
        <span aria-hidden className="mx-1 h-5 w-px bg-border" />
        <ToolButton label={t("ed.rich.bold")} active={state.bold} onClick={() => chain().toggleBold().run()}>
          <Bold aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.italic")} active={state.italic} onClick={() => chain().toggleItalic().run()}>
          <Italic aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.link")} active={state.link} onClick={() => ask("link")}>
          <LinkIcon aria-hidden className="h-4 w-4" />
        </ToolButton>
        <span aria-hidden className="mx-1 h-5 w-px bg-border" />
        <ToolButton label={t("ed.rich.bulletList")} active={state.bullet} onClick={() => chain().toggleBulletList().run()}>
          <List aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.orderedList")} active={state.ordered} onClick={() => chain().toggleOrderedList().run()}>
          <ListOrdered aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.quote")} active={state.quote} onClick={() => chain().toggleBlockquote().run()}>
          <Quote aria-hidden className="h-4 w-4" />
        </ToolButton>
        <span aria-hidden className="mx-1 h-5 w-px bg-border" />
        <ToolButton label={t("ed.rich.image")} onClick={() => setPicking(true)}>
          <ImageIcon aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.video")} onClick={() => ask("video")}>
          <Video aria-hidden className="h-4 w-4" />
        </ToolButton>
        <span aria-hidden className="mx-1 h-5 w-px bg-border" />
        <ToolButton label={t("ed.rich.undo")} disabled={!state.undo} onClick={() => chain().undo().run()}>
          <Undo2 aria-hidden className="h-4 w-4" />
        </ToolButton>
        <ToolButton label={t("ed.rich.redo")} disabled={!state.redo} onClick={() => chain().redo().run()}>
          <Redo2 aria-hidden className="h-4 w-4" />
        </ToolButton>
      </div>
      {asking ? (
        <div className="flex flex-wrap items-center gap-2 border border-b-0 border-border bg-white p-2" data-testid="rich-ask">
          <label className="text-sm" htmlFor={`${label}-address`}>
            {asking === "link" ? t("ed.rich.linkAddress") : t("ed.rich.videoAddress")}
          </label>
          <Input
            id={`${label}-address`}
            className="h-8 min-w-0 flex-1"
            value={address}
            placeholder={asking === "link" ? "https://… /ru/blog" : "https://youtu.be/…"}
            ref={(el) => {
              // Opened by a toolbar button: the address is what is typed next.
              if (el && document.activeElement !== el && !el.dataset.focused) {
                el.dataset.focused = "1";
                el.focus();
              }
            }}
            onChange={(e) => setAddress(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                apply();
              }
              if (e.key === "Escape") {
                e.preventDefault();
                e.stopPropagation();
                setAsking(null);
                editor.commands.focus();
              }
            }}
            aria-invalid={!!address.trim() && !linkTarget(address)}
          />
          <Button type="button" size="sm" onClick={apply}>
            {asking === "link" ? t("ed.rich.apply") : t("ed.rich.insert")}
          </Button>
          {asking === "link" && state.link ? (
            <Button type="button" size="sm" variant="outline" onClick={() => (chain().extendMarkRange("link").unsetLink().run(), setAsking(null))}>
              {t("ed.rich.unlink")}
            </Button>
          ) : null}
          <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(null)}>
            {t("admin.cancel")}
          </Button>
        </div>
      ) : null}
      <Dialog open={picking} onOpenChange={setPicking}>
        {picking ? (
          <DialogContent title={t("ed.rich.image")} className="w-[min(64rem,calc(100vw-2rem))]">
            <Suspense fallback={<p className="text-sm">{t("admin.loading")}</p>}>
              <MediaPicker
                lang={lang}
                pick={(row) => {
                  const src = fileUrl(row);
                  void import("../media-library").then(({ fileAltIn }) => {
                    if (src) chain().setImage({ src, alt: fileAltIn(row, lang) }).run();
                  });
                  setPicking(false);
                }}
              />
            </Suspense>
          </DialogContent>
        ) : null}
      </Dialog>
    </div>
  );
}

function Editor({ id, doc, onChange, label, disabled, lang }: { id: string; doc: JSONContent | undefined; onChange: (d: JSONContent) => void; label: string; disabled?: boolean; lang: string }) {
  const editor = useEditor({
    extensions,
    content: doc && typeof doc === "object" && doc.type === "doc" ? doc : EMPTY,
    editable: !disabled,
    immediatelyRender: false,
    editorProps: {
      attributes: {
        id,
        role: "textbox",
        "aria-multiline": "true",
        "aria-label": label,
        class: cn("min-h-40 max-w-none rounded-b-md border border-border bg-white p-3 text-base leading-relaxed text-neutral-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-neutral-900"),
      },
    },
    onUpdate: ({ editor: e }) => onChange(e.getJSON()),
  });
  return (
    <div data-testid="rich-editor">
      {editor && !disabled ? <Toolbar editor={editor} lang={lang} label={label} /> : null}
      <EditorContent editor={editor} />
    </div>
  );
}

/** Tiptap per language; the value is `{en: <doc>, ru: <doc>}` (TipTap JSON). */
export function RichTextWidget({ id, value, onChange, meta, field, disabled, lang }: WidgetProps) {
  const v = (value && typeof value === "object" ? value : {}) as Record<string, JSONContent>;
  return (
    <LanguageTabs name={fieldName(field, lang)} languages={meta.languages} current={lang} value={v}>
      {(l, first) => (
        <Editor
          id={first ? id : `${id}-${l}`}
          label={`${fieldName(field, lang)} (${l})`}
          doc={v[l]}
          lang={l}
          disabled={disabled}
          onChange={(d) => onChange({ ...v, [l]: d })}
        />
      )}
    </LanguageTabs>
  );
}
