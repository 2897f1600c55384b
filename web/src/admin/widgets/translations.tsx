import { fieldName } from "@/api/meta";
import { Input } from "@/ui/input";
import { LanguageTabs } from "./language-tabs";
import type { WidgetProps } from "./types";

/** One tab per language; the value is `{en: "...", ru: "..."}`. */
export function TranslationsWidget({ id, value, onChange, meta, disabled, field, lang }: WidgetProps) {
  const v = (value && typeof value === "object" ? value : {}) as Record<string, string | null>;
  return (
    <LanguageTabs name={fieldName(field, lang)} languages={meta.languages} current={lang} value={v}>
      {(l, first) => (
        <Input
          id={first ? id : `${id}-${l}`}
          aria-label={`${fieldName(field, lang)} (${l})`}
          disabled={disabled}
          value={v[l] ?? ""}
          onChange={(e) => onChange({ ...v, [l]: e.target.value })}
        />
      )}
    </LanguageTabs>
  );
}
