import type { ReactNode } from "react";

/** A Tiptap (ProseMirror) JSON node. */
interface PmNode {
  type?: string;
  text?: string;
  attrs?: Record<string, unknown>;
  marks?: { type: string; attrs?: Record<string, unknown> }[];
  content?: PmNode[];
}

function safeHref(href: unknown): string | undefined {
  if (typeof href !== "string") return undefined;
  return /^(https?:|mailto:|tel:|\/|#)/i.test(href) ? href : undefined;
}

function renderMarks(text: ReactNode, marks: PmNode["marks"], key: string): ReactNode {
  return (marks ?? []).reduce<ReactNode>((acc, m, i) => {
    const k = `${key}-${i}`;
    switch (m.type) {
      case "bold":
        return <strong key={k}>{acc}</strong>;
      case "italic":
        return <em key={k}>{acc}</em>;
      case "strike":
        return <s key={k}>{acc}</s>;
      case "code":
        return <code key={k}>{acc}</code>;
      case "link": {
        const href = safeHref(m.attrs?.href);
        return href ? (
          <a key={k} href={href} className="underline underline-offset-2">
            {acc}
          </a>
        ) : (
          acc
        );
      }
      default:
        return acc;
    }
  }, text);
}

function renderNode(n: PmNode, key: string): ReactNode {
  const kids = (n.content ?? []).map((c, i) => renderNode(c, `${key}.${i}`));
  switch (n.type) {
    case "doc":
      return <>{kids}</>;
    case "paragraph":
      return kids.length ? <p key={key}>{kids}</p> : null;
    case "heading": {
      const level = Math.min(6, Math.max(1, Number(n.attrs?.level) || 2));
      const H = `h${level}` as "h2";
      return <H key={key}>{kids}</H>;
    }
    case "text":
      return renderMarks(n.text ?? "", n.marks, key);
    case "hardBreak":
      return <br key={key} />;
    case "bulletList":
      return <ul key={key} className="list-disc pl-6">{kids}</ul>;
    case "orderedList":
      return <ol key={key} className="list-decimal pl-6">{kids}</ol>;
    case "listItem":
      return <li key={key}>{kids}</li>;
    case "blockquote":
      return <blockquote key={key} className="border-l-4 pl-4 italic">{kids}</blockquote>;
    case "horizontalRule":
      return <hr key={key} />;
    case "codeBlock":
      return <pre key={key}>{kids}</pre>;
    default:
      return kids.length ? <span key={key}>{kids}</span> : null;
  }
}

/** Whether a rich-text value (a document, or a plain string) has any text. */
export function hasText(v: unknown): boolean {
  if (typeof v === "string") return v.trim() !== "";
  if (!v || typeof v !== "object") return false;
  const n = v as PmNode;
  return Boolean(n.text?.trim()) || (n.content ?? []).some(hasText);
}

/**
 * Renders a rich-text document without raw HTML (links only to safe schemes). Invalid content
 * falls back to a paragraph of text (SPEC §8).
 */
export function RichText({ value, className }: { value: unknown; className?: string }) {
  if (!hasText(value)) return null;
  if (typeof value === "string") return <div className={className}><p>{value}</p></div>;
  return <div className={className}>{renderNode(value as PmNode, "r")}</div>;
}

/** The rich text of a translations map in `lang`. */
export function richOf(v: unknown, lang: string): unknown {
  if (!v || typeof v !== "object") return v;
  const m = v as Record<string, unknown>;
  if ("type" in m) return m;
  return m[lang] ?? m.ru ?? m.en;
}
