import { Input } from "@/ui/input";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/ui/tabs";
import type { WidgetProps } from "./types";

/** One tab per language; the value is `{en: "...", ru: "..."}`. */
export function TranslationsWidget({ id, value, onChange, meta, disabled, field }: WidgetProps) {
  const v = (value && typeof value === "object" ? value : {}) as Record<string, string | null>;
  const langs = meta.languages;
  return (
    <Tabs defaultValue={langs[0]}>
      <TabsList aria-label={field.name}>
        {langs.map((l) => (
          <TabsTrigger key={l} value={l}>
            {l}
          </TabsTrigger>
        ))}
      </TabsList>
      {langs.map((l) => (
        <TabsContent key={l} value={l} className="mt-2">
          <Input
            id={l === langs[0] ? id : `${id}-${l}`}
            aria-label={`${field.name} (${l})`}
            disabled={disabled}
            value={v[l] ?? ""}
            onChange={(e) => onChange({ ...v, [l]: e.target.value })}
          />
        </TabsContent>
      ))}
    </Tabs>
  );
}
