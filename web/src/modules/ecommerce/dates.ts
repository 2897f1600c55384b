//! Dates of orders as people read them, in the page's language (dayjs with its ru locale).
import dayjs from "dayjs";
import localizedFormat from "dayjs/plugin/localizedFormat";
import "dayjs/locale/ru";

dayjs.extend(localizedFormat);

const locale = (lang: string) => (lang === "ru" ? "ru" : "en");

/** `12 марта 2026 г., 14:05` / `March 12, 2026 2:05 PM`; an unreadable date stays as given. */
export function formatDateTime(iso: string, lang: string): string {
  const d = dayjs(iso);
  return d.isValid() ? d.locale(locale(lang)).format("LLL") : iso;
}
