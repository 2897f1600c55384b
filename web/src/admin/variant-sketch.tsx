// The thumbnail of a block variant in the page builder's gallery: a wireframe of the layout the
// variant renders (a grid of cards for a list, a picture beside text for an overview, fields and a
// button for a form…), drawn from what its name says. Decorative: the variant's name is beside it.

export type Family =
  | "form"
  | "button"
  | "slider"
  | "nav"
  | "footer"
  | "faq"
  | "features"
  | "chat"
  | "document"
  | "profile"
  | "people"
  | "list"
  | "overview"
  | "gallery"
  | "galleryInversed"
  | "map"
  | "progress"
  | "timeline"
  | "video"
  | "qr"
  | "hero"
  | "heading"
  | "text";

const RULES: [RegExp, Family][] = [
  [/logout|(^|-)button(-|$)|list-button/, "button"],
  [/authentication|registration|forgot|reset-password|identity-settings|select-method|create-subscription|(^|\.)(form|text|textarea|number|input)(-|$)/, "form"],
  [/gallery-and-text-inversed/, "galleryInversed"],
  [/gallery/, "gallery"],
  [/(^|-)map(-|$)/, "map"],
  [/target|goal|progress/, "progress"],
  [/timeline/, "timeline"],
  [/video/, "video"],
  [/qr-code/, "qr"],
  [/celebrit|tiers|pricing/, "people"],
  [/headlines|how-it-works/, "features"],
  [/-heading$|-heading-/, "heading"],
  [/requisites/, "document"],
  [/slider|carousel/, "slider"],
  [/navbar|header|(^|-)menu/, "nav"],
  [/footer/, "footer"],
  [/faq|accordion|question/, "faq"],
  [/feature|benefit/, "features"],
  [/chat|message|thread/, "chat"],
  [/receipt|template|generate|attachment|opengraph|invoice/, "document"],
  [/profile|subject-overview|person|team/, "profile"],
  [/list|grid|catalog/, "list"],
  [/overview|detail/, "overview"],
  [/hero|banner|cta|^website-builder\.default$|^website-builder\.for-planet/, "hero"],
];

/** What a variant looks like, from its module and name ("blog", "article-list-default" → list). */
export function sketchFamily(module: string, variant: string): Family {
  const key = `${module}.${variant}`;
  for (const [re, family] of RULES) if (re.test(key)) return family;
  return "text";
}

const MUTED = "#d4d4d8";
const SOFT = "#e4e4e7";
const INK = "#71717a";
const ACCENT = "#16a34a";

function lines(x: number, y: number, widths: number[], gap = 6) {
  return widths.map((w, i) => <rect key={`${x}-${y}-${i}`} x={x} y={y + i * gap} width={w} height={3} rx={1.5} fill={MUTED} />);
}

function shapes(family: Family) {
  switch (family) {
    case "form":
      return (
        <>
          {[14, 28, 42].map((y) => (
            <rect key={y} x={30} y={y} width={60} height={9} rx={2} fill="white" stroke={MUTED} />
          ))}
          <rect x={30} y={56} width={28} height={9} rx={2} fill={ACCENT} />
        </>
      );
    case "button":
      return <rect x={38} y={29} width={44} height={14} rx={4} fill={ACCENT} />;
    case "slider":
      return (
        <>
          <rect x={18} y={10} width={84} height={44} rx={3} fill={SOFT} />
          <path d="M10 32 l5 -5 v10 z M110 32 l-5 -5 v10 z" fill={INK} />
          {[52, 60, 68].map((x, i) => (
            <circle key={x} cx={x} cy={63} r={2.5} fill={i === 0 ? ACCENT : MUTED} />
          ))}
        </>
      );
    case "nav":
      return (
        <>
          <rect x={6} y={8} width={108} height={14} rx={2} fill={SOFT} />
          <rect x={11} y={12} width={16} height={6} rx={1} fill={ACCENT} />
          {lines(50, 13.5, [12], 0)}
          {lines(66, 13.5, [12], 0)}
          {lines(82, 13.5, [12], 0)}
          {lines(12, 34, [96, 80, 88])}
        </>
      );
    case "footer":
      return (
        <>
          {lines(12, 12, [96, 80])}
          <rect x={6} y={36} width={108} height={30} rx={2} fill={SOFT} />
          {[14, 48, 82].map((x) => (
            <g key={x}>{lines(x, 42, [22, 18, 20])}</g>
          ))}
        </>
      );
    case "faq":
      return (
        <>
          {[10, 26, 42, 58].map((y) => (
            <g key={y}>
              <rect x={12} y={y} width={96} height={11} rx={2} fill="white" stroke={MUTED} />
              {lines(16, y + 4, [50], 0)}
              <path d={`M100 ${y + 4} l3 3 l3 -3`} stroke={INK} fill="none" />
            </g>
          ))}
        </>
      );
    case "features":
      return (
        <>
          {[20, 54, 88].map((x) => (
            <g key={x}>
              <circle cx={x + 6} cy={24} r={7} fill={ACCENT} opacity={0.8} />
              {lines(x - 4, 38, [20, 16, 18])}
            </g>
          ))}
        </>
      );
    case "chat":
      return (
        <>
          <rect x={10} y={10} width={56} height={12} rx={6} fill={SOFT} />
          <rect x={54} y={28} width={56} height={12} rx={6} fill={ACCENT} opacity={0.8} />
          <rect x={10} y={46} width={44} height={12} rx={6} fill={SOFT} />
        </>
      );
    case "document":
      return (
        <>
          <rect x={36} y={6} width={48} height={60} rx={2} fill="white" stroke={MUTED} />
          <rect x={42} y={12} width={18} height={5} rx={1} fill={ACCENT} />
          {lines(42, 24, [36, 30, 36, 24, 32])}
        </>
      );
    case "profile":
      return (
        <>
          <circle cx={30} cy={36} r={14} fill={SOFT} />
          <circle cx={30} cy={31} r={5} fill={MUTED} />
          <path d="M21 44 a9 7 0 0 1 18 0 z" fill={MUTED} />
          <rect x={52} y={24} width={40} height={5} rx={2} fill={INK} />
          {lines(52, 35, [56, 48, 52])}
        </>
      );
    case "list":
      return (
        <>
          {[8, 45, 82].map((x) => (
            <g key={x}>
              <rect x={x} y={10} width={30} height={22} rx={2} fill={SOFT} />
              {lines(x, 37, [28, 20])}
              <rect x={x} y={50} width={14} height={6} rx={2} fill={ACCENT} opacity={0.8} />
            </g>
          ))}
        </>
      );
    case "overview":
      return (
        <>
          <rect x={8} y={10} width={48} height={52} rx={2} fill={SOFT} />
          <rect x={64} y={12} width={40} height={6} rx={2} fill={INK} />
          {lines(64, 26, [46, 40, 44, 30])}
          <rect x={64} y={52} width={22} height={8} rx={2} fill={ACCENT} />
        </>
      );
    case "hero":
      return (
        <>
          <rect x={6} y={6} width={108} height={60} rx={3} fill={SOFT} />
          <rect x={24} y={18} width={72} height={8} rx={2} fill={INK} />
          {lines(32, 32, [56, 44])}
          <rect x={46} y={48} width={28} height={9} rx={3} fill={ACCENT} />
        </>
      );
    case "people":
      return (
        <>
          {[14, 48, 82].map((x) => (
            <g key={x}>
              <rect x={x - 4} y={8} width={32} height={56} rx={3} fill="white" stroke={MUTED} />
              <circle cx={x + 12} cy={24} r={8} fill={SOFT} />
              {lines(x + 1, 38, [22, 16])}
              <rect x={x + 3} y={52} width={18} height={6} rx={2} fill={ACCENT} opacity={0.8} />
            </g>
          ))}
        </>
      );
    case "gallery":
    case "galleryInversed": {
      const [img, txt] = family === "gallery" ? [8, 64] : [64, 8];
      return (
        <>
          <rect x={img} y={10} width={22} height={24} rx={2} fill={SOFT} />
          <rect x={img + 26} y={10} width={22} height={24} rx={2} fill={SOFT} />
          <rect x={img} y={38} width={48} height={24} rx={2} fill={SOFT} />
          <rect x={txt} y={14} width={36} height={6} rx={2} fill={INK} />
          {lines(txt, 28, [46, 40, 44, 30])}
        </>
      );
    }
    case "map":
      return (
        <>
          <rect x={8} y={8} width={104} height={56} rx={3} fill={SOFT} />
          <path d="M8 40 Q40 20 70 44 T112 30" stroke="white" strokeWidth={4} fill="none" />
          <path d="M60 18 a8 8 0 0 1 16 0 c0 7 -8 16 -8 16 s-8 -9 -8 -16 z" fill={ACCENT} />
          <circle cx={68} cy={18} r={3} fill="white" />
        </>
      );
    case "progress":
      return (
        <>
          <rect x={14} y={14} width={60} height={7} rx={2} fill={INK} />
          {lines(14, 28, [80, 64])}
          <rect x={14} y={44} width={92} height={8} rx={4} fill={SOFT} />
          <rect x={14} y={44} width={58} height={8} rx={4} fill={ACCENT} />
          {lines(14, 58, [24], 0)}
          {lines(82, 58, [24], 0)}
        </>
      );
    case "timeline":
      return (
        <>
          <rect x={28} y={8} width={2} height={56} fill={MUTED} />
          {[14, 34, 54].map((y) => (
            <g key={y}>
              <circle cx={29} cy={y} r={4} fill={ACCENT} />
              {lines(40, y - 3, [52, 38])}
            </g>
          ))}
        </>
      );
    case "video":
      return (
        <>
          {[8, 62].map((x) => (
            <g key={x}>
              <rect x={x} y={12} width={50} height={32} rx={3} fill={INK} opacity={0.7} />
              <path d={`M${x + 21} 21 v14 l12 -7 z`} fill="white" />
              {lines(x, 50, [44, 30])}
            </g>
          ))}
        </>
      );
    case "qr":
      return (
        <>
          <rect x={14} y={10} width={52} height={52} rx={2} fill="white" stroke={MUTED} />
          {[
            [18, 14],
            [48, 14],
            [18, 44],
          ].map(([x, y]) => (
            <rect key={`${x}-${y}`} x={x} y={y} width={14} height={14} fill="none" stroke={INK} strokeWidth={3} />
          ))}
          {[
            [40, 40],
            [46, 48],
            [54, 42],
            [40, 54],
            [52, 54],
          ].map(([x, y]) => (
            <rect key={`${x}-${y}`} x={x} y={y} width={5} height={5} fill={INK} />
          ))}
          <rect x={74} y={20} width={34} height={6} rx={2} fill={INK} />
          {lines(74, 34, [34, 28, 32])}
        </>
      );
    case "heading":
      return (
        <>
          <rect x={16} y={26} width={88} height={10} rx={2} fill={INK} />
          {lines(30, 44, [60])}
        </>
      );
    default:
      return (
        <>
          <rect x={12} y={12} width={60} height={7} rx={2} fill={INK} />
          {lines(12, 28, [96, 90, 94, 70, 84])}
        </>
      );
  }
}

/** The wireframe of a variant, 120 × 72, filling its box's width. */
export function VariantSketch({ module, variant }: { module: string; variant: string }) {
  const family = sketchFamily(module, variant);
  return (
    <svg viewBox="0 0 120 72" aria-hidden focusable="false" className="h-auto w-full rounded border border-border bg-white" data-sketch={family}>
      {shapes(family)}
    </svg>
  );
}
