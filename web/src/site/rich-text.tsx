import type { ReactNode } from "react";
import { useWidgetsT } from "./widgets-i18n";

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

/** An image's address: ours (a path) or an https one; nothing else (no `data:`, no `javascript:`). */
function safeSrc(src: unknown): string | undefined {
  if (typeof src !== "string") return undefined;
  return /^(https:\/\/|\/(?!\/))/i.test(src) ? src : undefined;
}

const str = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * The look of each block, in `em` so the text keeps the size its place gives it (an article's
 * body, a card's small print) and in the colour it inherits (light sections and dark ones). Blocks
 * are spaced by their own top margins inside one wrapper, so a caller's `space-y-*` spaces the
 * wrapper and never fights them. Headings stand out by size and weight, the first block starts
 * flush.
 */
export const RICH_STYLE = {
  p: "mt-[0.85em] first:mt-0",
  h1: "mt-[1.4em] mb-[0.5em] text-[1.875em] font-bold leading-tight tracking-tight first:mt-0",
  h2: "mt-[1.6em] mb-[0.4em] text-[1.5em] font-bold leading-snug tracking-tight first:mt-0",
  h3: "mt-[1.4em] mb-[0.3em] text-[1.25em] font-semibold leading-snug first:mt-0",
  h4: "mt-[1.2em] mb-[0.2em] text-[1.125em] font-semibold first:mt-0",
  h5: "mt-[1.2em] font-semibold first:mt-0",
  h6: "mt-[1.2em] font-semibold uppercase tracking-wide opacity-80 first:mt-0",
  ul: "mt-[0.85em] list-disc space-y-[0.35em] pl-[1.5em] marker:opacity-60 first:mt-0",
  ol: "mt-[0.85em] list-decimal space-y-[0.35em] pl-[1.5em] marker:opacity-60 first:mt-0",
  li: "pl-[0.25em] [&>p]:mt-0",
  blockquote: "mt-[1.2em] border-l-4 border-emerald-700/60 pl-[1em] italic opacity-90 first:mt-0",
  hr: "my-[2em] border-t border-current opacity-20",
  pre: "mt-[1em] overflow-x-auto rounded-lg bg-neutral-900 p-[1em] font-mono text-[0.85em] leading-relaxed text-neutral-50 first:mt-0",
  code: "rounded bg-neutral-500/15 px-[0.3em] py-[0.1em] font-mono text-[0.9em]",
  a: "underline decoration-1 underline-offset-2 hover:decoration-2",
  figure: "mt-[1.2em] first:mt-0",
  img: "h-auto w-full rounded-xl",
  figcaption: "mt-[0.5em] text-center text-[0.85em] opacity-75",
} as const;
const STYLE = RICH_STYLE;

function renderMarks(text: ReactNode, marks: PmNode["marks"], key: string): ReactNode {
  return (marks ?? []).reduce<ReactNode>((acc, m, i) => {
    const k = `${key}-${i}`;
    switch (m.type) {
      case "bold":
        return <strong key={k}>{acc}</strong>;
      case "italic":
        return <em key={k}>{acc}</em>;
      case "underline":
        return <u key={k}>{acc}</u>;
      case "strike":
        return <s key={k}>{acc}</s>;
      case "code":
        return (
          <code key={k} className={STYLE.code}>
            {acc}
          </code>
        );
      case "link": {
        const href = safeHref(m.attrs?.href);
        return href ? (
          <a key={k} href={href} className={STYLE.a}>
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

/** An embedded video: a link to it (a player would call its host from the reader's browser
 * before they asked for it). */
function Embed({ src }: { src: string }) {
  const t = useWidgetsT();
  return (
    <p className={STYLE.figure}>
      <a href={src} className={`${STYLE.a} font-medium`} rel="noopener noreferrer" target="_blank">
        ▶ {t("widgets.richText.video")}
      </a>
    </p>
  );
}

function renderNode(n: PmNode, key: string): ReactNode {
  const kids = (n.content ?? []).map((c, i) => renderNode(c, `${key}.${i}`));
  switch (n.type) {
    case "doc":
      return <>{kids}</>;
    case "paragraph":
      return kids.length ? (
        <p key={key} className={STYLE.p}>
          {kids}
        </p>
      ) : null;
    case "heading": {
      const level = Math.min(6, Math.max(1, Number(n.attrs?.level) || 2)) as 1 | 2 | 3 | 4 | 5 | 6;
      const H = `h${level}` as const;
      return (
        <H key={key} className={STYLE[H]}>
          {kids}
        </H>
      );
    }
    case "text":
      return renderMarks(n.text ?? "", n.marks, key);
    case "hardBreak":
      return <br key={key} />;
    case "bulletList":
      return (
        <ul key={key} className={STYLE.ul}>
          {kids}
        </ul>
      );
    case "orderedList":
      return (
        <ol key={key} className={STYLE.ol}>
          {kids}
        </ol>
      );
    case "listItem":
      return (
        <li key={key} className={STYLE.li}>
          {kids}
        </li>
      );
    case "blockquote":
      return (
        <blockquote key={key} className={STYLE.blockquote}>
          {kids}
        </blockquote>
      );
    case "horizontalRule":
      return <hr key={key} className={STYLE.hr} />;
    case "codeBlock":
      return (
        <pre key={key} className={STYLE.pre}>
          <code>{kids}</code>
        </pre>
      );
    case "image": {
      const src = safeSrc(n.attrs?.src);
      if (!src) return null;
      const caption = str(n.attrs?.title);
      return (
        <figure key={key} className={STYLE.figure}>
          <img src={src} alt={str(n.attrs?.alt)} loading="lazy" decoding="async" className={STYLE.img} />
          {caption ? <figcaption className={STYLE.figcaption}>{caption}</figcaption> : null}
        </figure>
      );
    }
    case "youtube":
    case "video":
    case "embed": {
      const src = safeHref(n.attrs?.src);
      return src && /^https?:/i.test(src) ? <Embed key={key} src={src} /> : null;
    }
    default:
      return kids.length ? <span key={key}>{kids}</span> : null;
  }
}

/** Plain text as paragraphs (split at blank lines). */
function paragraphs(value: string): ReactNode {
  return value
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p, i) => (
      <p key={i} className={STYLE.p}>
        {p.trim()}
      </p>
    ));
}

/** Whether a rich-text value (a document, or a plain string) has anything to show: text or an image. */
export function hasText(v: unknown): boolean {
  if (typeof v === "string") return v.trim() !== "";
  if (!v || typeof v !== "object") return false;
  const n = v as PmNode;
  return Boolean(n.text?.trim()) || (n.type === "image" && Boolean(safeSrc(n.attrs?.src))) || (n.content ?? []).some(hasText);
}

/**
 * Renders a rich-text document without raw HTML (links only to safe schemes). Invalid content
 * falls back to a paragraph of text (SPEC §8).
 */
export function RichText({ value, className }: { value: unknown; className?: string }) {
  if (!hasText(value)) return null;
  // One wrapper inside: a caller's `space-y-*` spaces it, the blocks space themselves (`STYLE`).
  return (
    <div className={className}>
      <div data-rich-text="">{typeof value === "string" ? paragraphs(value) : renderNode(value as PmNode, "r")}</div>
    </div>
  );
}

/** The rich text of a translations map in `lang`. */
export function richOf(v: unknown, lang: string): unknown {
  if (!v || typeof v !== "object") return v;
  const m = v as Record<string, unknown>;
  if ("type" in m) return m;
  return m[lang] ?? m.ru ?? m.en;
}
