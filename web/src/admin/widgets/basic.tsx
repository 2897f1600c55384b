import { valueName } from "@/api/meta";
import { useState } from "react";
import { useTranslation } from "@/i18n";
import { Input, Select, Textarea } from "@/ui/input";
import { Unparsed } from "../schema";
import type { WidgetProps } from "./types";

export function TextWidget({ id, field, value, onChange, disabled, invalid }: WidgetProps) {
  const long = (field.maxLength ?? 0) > 1000;
  const common = {
    id,
    disabled,
    "aria-invalid": invalid || undefined,
    value: typeof value === "string" ? value : "",
    maxLength: field.maxLength ?? undefined,
  };
  if (long && field.name !== "url" && field.name !== "file") {
    return <Textarea {...common} className="min-h-16 font-sans" rows={2} onChange={(e) => onChange(e.target.value)} />;
  }
  return <Input {...common} type={field.format === "email" ? "email" : "text"} onChange={(e) => onChange(e.target.value)} />;
}

/** Parses a number input: empty stays empty (null), anything else becomes a number. */
export function parseNumber(raw: string): number | null {
  if (raw.trim() === "") return null;
  const n = Number(raw);
  return Number.isNaN(n) ? null : n;
}

export function NumberWidget({ id, field, value, onChange, disabled, invalid, min, max, step }: WidgetProps & { min?: number; max?: number; step?: number }) {
  const decimal = field.kind === "decimal";
  return (
    <Input
      id={id}
      type="number"
      inputMode={decimal ? "decimal" : "numeric"}
      min={min}
      max={max}
      step={step ?? (decimal ? "any" : 1)}
      disabled={disabled}
      aria-invalid={invalid || undefined}
      value={value === null || value === undefined ? "" : String(value)}
      onChange={(e) => {
        const n = parseNumber(e.target.value);
        onChange(decimal && n !== null ? e.target.value.trim() : n);
      }}
    />
  );
}

export function BooleanWidget({ id, value, onChange, disabled }: WidgetProps) {
  return (
    <input
      id={id}
      type="checkbox"
      className="h-5 w-5 accent-neutral-900"
      disabled={disabled}
      checked={value === true}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}

export function EnumWidget({ id, field, value, onChange, disabled, invalid, lang }: WidgetProps) {
  const { t } = useTranslation();
  return (
    <Select
      id={id}
      disabled={disabled}
      aria-invalid={invalid || undefined}
      value={typeof value === "string" ? value : ""}
      onChange={(e) => onChange(e.target.value === "" ? null : e.target.value)}
    >
      {!field.required ? <option value="">{t("admin.none")}</option> : null}
      {(field.values ?? []).map((v) => (
        <option key={v} value={v}>
          {valueName(field, v, lang)}
        </option>
      ))}
    </Select>
  );
}

/** JSON as text: a value that parses is the field's value; text that does not is held as
 * `Unparsed`, which the form refuses to save (instead of saving the last text that parsed). */
/** A JSON value as an editor reads it: nothing for no value (not the word "null"). */
function jsonText(v: unknown): string {
  return v === null || v === undefined ? "" : JSON.stringify(v, null, 2);
}

/** What typed JSON stands for: no value when nothing is typed. */
function parseJson(text: string): unknown {
  return text.trim() === "" ? null : (JSON.parse(text) as unknown);
}

export function JsonWidget({ id, value, onChange, disabled, invalid }: WidgetProps) {
  const { t } = useTranslation();
  const [text, setText] = useState(() => (value instanceof Unparsed ? value.text : jsonText(value)));
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    // The value changed from outside (a record loaded): show it, unless it is what was typed.
    setShown(value);
    if (value instanceof Unparsed) {
      if (value.text !== text) setText(value.text);
    } else {
      let typed: unknown = undefined;
      try {
        typed = parseJson(text);
      } catch {
        typed = undefined;
      }
      if (JSON.stringify(typed) !== JSON.stringify(value ?? null)) setText(jsonText(value));
    }
  }
  const bad = value instanceof Unparsed;
  return (
    <div className="grid gap-1">
      <Textarea
        id={id}
        disabled={disabled}
        aria-invalid={bad || invalid || undefined}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          try {
            onChange(parseJson(e.target.value));
          } catch {
            onChange(new Unparsed(e.target.value));
          }
        }}
      />
      {/* In a form the field's message says it (invalid); alone, the widget does. */}
      {bad && !invalid ? <p className="text-sm text-destructive">{t("admin.invalidJson")}</p> : null}
    </div>
  );
}
