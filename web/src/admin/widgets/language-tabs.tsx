import type { ReactNode } from "react";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/ui/tabs";
import { useRecordsT } from "../records-i18n";
import { missingLanguages } from "../schema";

/** "missing ru": a language a record (or one of its fields) has no text in; `title` says where. */
export function MissingBadge({ lang, title }: { lang: string; title?: string }) {
  const t = useRecordsT();
  return (
    <span data-testid="missing-language" data-lang={lang} title={title} className="inline-flex items-center rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium whitespace-nowrap text-amber-900">
      {t("records.missing", { lang })}
    </span>
  );
}

/** A tab per language around one editor each (translations and rich text), the admin's own
 * language first, with a badge for each language the value lacks while another has it. */
export function LanguageTabs({
  name,
  languages: declared,
  current,
  value,
  children,
}: {
  name: string;
  languages: readonly string[];
  /** The admin's language: its tab comes first and is open. */
  current: string;
  /** The field's value, `{en: …, ru: …}`: what it lacks is shown beside the tabs. */
  value?: unknown;
  children: (lang: string, first: boolean) => ReactNode;
}) {
  const languages = declared.includes(current) ? [current, ...declared.filter((l) => l !== current)] : declared;
  const missing = missingLanguages(value, languages);
  return (
    <Tabs defaultValue={languages[0]}>
      <div className="flex flex-wrap items-center gap-2">
        <TabsList aria-label={name}>
          {languages.map((l) => (
            <TabsTrigger key={l} value={l}>
              {l}
            </TabsTrigger>
          ))}
        </TabsList>
        {missing.map((l) => (
          <MissingBadge key={l} lang={l} />
        ))}
      </div>
      {languages.map((l, i) => (
        <TabsContent key={l} value={l} className="mt-2">
          {children(l, i === 0)}
        </TabsContent>
      ))}
    </Tabs>
  );
}
