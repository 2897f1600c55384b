import dayjs from "dayjs";
import customParseFormat from "dayjs/plugin/customParseFormat";
import { useState } from "react";
import { useTranslation } from "@/i18n";
import { Input, Select } from "@/ui/input";
import { fieldName } from "@/api/meta";
import { Unparsed } from "../schema";
import type { WidgetProps } from "./types";

dayjs.extend(customParseFormat);

export const DATE_FORMAT = "DD.MM.YYYY HH:mm";
export const MINUTE_STEP = 5;

/** Strictly parses `DD.MM.YYYY HH:mm` (hours 0–23); anything else is null. */
export function parseDateTime(text: string): Date | null {
  const d = dayjs(text.trim(), DATE_FORMAT, true);
  return d.isValid() ? d.toDate() : null;
}

export function formatDateTime(value: unknown): string {
  if (typeof value !== "string" || !value) return "";
  const d = dayjs(value);
  return d.isValid() ? d.format(DATE_FORMAT) : "";
}

/** Rounds to the 5-minute grid of the picker. */
export function snapMinutes(d: Date): Date {
  const out = new Date(d);
  out.setMinutes(Math.round(out.getMinutes() / MINUTE_STEP) * MINUTE_STEP, 0, 0);
  return out;
}

/** A date and time typed as DD.MM.YYYY HH:mm or picked by hour and minute. Text that does not
 * parse is held as `Unparsed`, which the form refuses to save. */
export function DateTimeWidget({ id, value, onChange, disabled, field, invalid, lang }: WidgetProps) {
  const { t } = useTranslation();
  const [text, setText] = useState(() => (value instanceof Unparsed ? value.text : formatDateTime(value)));
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    if (value instanceof Unparsed) {
      if (value.text !== text) setText(value.text);
    } else if (parseDateTime(text)?.toISOString() !== value) setText(formatDateTime(value));
  }
  const bad = value instanceof Unparsed;
  const current = typeof value === "string" && value ? dayjs(value) : null;
  function commit(d: Date | null) {
    onChange(d ? d.toISOString() : null);
  }
  function setPart(hours: number | null, minutes: number | null) {
    const base = current ?? dayjs().startOf("day");
    const d = base
      .hour(hours ?? base.hour())
      .minute(minutes ?? base.minute())
      .second(0)
      .millisecond(0);
    setText(d.format(DATE_FORMAT));
    commit(d.toDate());
  }
  return (
    <div className="grid gap-1">
      <div className="flex gap-2">
        <Input
          id={id}
          placeholder={DATE_FORMAT}
          disabled={disabled}
          aria-invalid={bad || invalid || undefined}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value.trim() === "") {
              commit(null);
              return;
            }
            const d = parseDateTime(e.target.value);
            if (d) commit(d);
            else onChange(new Unparsed(e.target.value));
          }}
        />
        <Select aria-label={`${fieldName(field, lang)}: ${t("admin.hours")}`} className="w-20" disabled={disabled} value={current ? current.hour() : ""} onChange={(e) => setPart(Number(e.target.value), null)}>
          <option value="" disabled>
            HH
          </option>
          {Array.from({ length: 24 }, (_, h) => (
            <option key={h} value={h}>
              {String(h).padStart(2, "0")}
            </option>
          ))}
        </Select>
        <Select
          aria-label={`${fieldName(field, lang)}: ${t("admin.minutes")}`}
          className="w-20"
          disabled={disabled}
          value={current ? Math.floor(current.minute() / MINUTE_STEP) * MINUTE_STEP : ""}
          onChange={(e) => setPart(null, Number(e.target.value))}
        >
          <option value="" disabled>
            mm
          </option>
          {Array.from({ length: 60 / MINUTE_STEP }, (_, i) => i * MINUTE_STEP).map((m) => (
            <option key={m} value={m}>
              {String(m).padStart(2, "0")}
            </option>
          ))}
        </Select>
      </div>
      {/* In a form the field's message says it (invalid); alone, the widget does. */}
      {bad && !invalid ? <p className="text-sm text-destructive">{t("admin.invalidDate")}</p> : null}
    </div>
  );
}
