import { fieldName } from "@/api/meta";
import { EditorContent, useEditor } from "@tiptap/react";
import { StarterKit } from "@tiptap/starter-kit";
import type { JSONContent } from "@tiptap/react";
import { LanguageTabs } from "./language-tabs";
import type { WidgetProps } from "./types";

const EMPTY: JSONContent = { type: "doc", content: [{ type: "paragraph" }] };

function Editor({ id, doc, onChange, label, disabled }: { id: string; doc: JSONContent | undefined; onChange: (d: JSONContent) => void; label: string; disabled?: boolean }) {
  const editor = useEditor({
    extensions: [StarterKit.configure({ heading: { levels: [1, 2, 3, 4, 5, 6] } })],
    content: doc && typeof doc === "object" && doc.type === "doc" ? doc : EMPTY,
    editable: !disabled,
    immediatelyRender: false,
    editorProps: {
      attributes: {
        id,
        role: "textbox",
        "aria-multiline": "true",
        "aria-label": label,
        class: "prose prose-sm min-h-28 max-w-none rounded-md border border-border p-3 focus:outline-none focus-visible:ring-2 focus-visible:ring-neutral-900",
      },
    },
    onUpdate: ({ editor: e }) => onChange(e.getJSON()),
  });
  return <EditorContent editor={editor} />;
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
          disabled={disabled}
          onChange={(d) => onChange({ ...v, [l]: d })}
        />
      )}
    </LanguageTabs>
  );
}
