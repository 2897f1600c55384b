import type { ReactNode } from "react";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/ui/tabs";

/** A tab per language around one editor each (translations and rich text). */
export function LanguageTabs({ name, languages, children }: { name: string; languages: readonly string[]; children: (lang: string, first: boolean) => ReactNode }) {
  return (
    <Tabs defaultValue={languages[0]}>
      <TabsList aria-label={name}>
        {languages.map((l) => (
          <TabsTrigger key={l} value={l}>
            {l}
          </TabsTrigger>
        ))}
      </TabsList>
      {languages.map((l, i) => (
        <TabsContent key={l} value={l} className="mt-2">
          {children(l, i === 0)}
        </TabsContent>
      ))}
    </Tabs>
  );
}
