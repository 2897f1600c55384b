import type { Ref } from "react";
import { useTranslation } from "@/i18n";

export const MAX_QUANTITY = 10_000;

/** The quantity rule: a whole number, at least 1 (empty while typing). */
export function clampQuantity(raw: string): number | "" {
  if (raw.trim() === "") return "";
  const n = Math.floor(Number(raw));
  return Number.isFinite(n) ? Math.max(1, Math.min(MAX_QUANTITY, n)) : 1;
}

/** `q` moved by `d` within 1…MAX_QUANTITY ('−' on an empty or 1 leaves it as it is). */
export function stepQuantity(q: number | "", d: number): number | "" {
  if (d < 0 && (q === "" || q <= 1)) return q;
  return Math.min(MAX_QUANTITY, Math.max(1, (q === "" ? 0 : q) + d));
}

/** '−', the quantity and '+': the donation's and the product page's stepper. `testId` prefixes
 * the parts' test ids (`minus`, `quantity`, `plus`). */
export function QuantityStepper({ id, label, value, onChange, inputRef, testId = "" }: { id: string; label: string; value: number | ""; onChange: (q: number | "") => void; inputRef?: Ref<HTMLInputElement>; testId?: string }) {
  const { t } = useTranslation();
  return (
    <div>
      <label htmlFor={id} className="text-sm font-semibold">
        {label}
      </label>
      <div className="mt-1 flex items-center gap-2">
        <button type="button" onClick={() => onChange(stepQuantity(value, -1))} aria-label={t("site.less")} data-testid={`${testId}minus`} className="h-11 w-11 rounded-full border border-emerald-800 text-xl font-bold">
          −
        </button>
        <input ref={inputRef} id={id} data-testid={`${testId}quantity`} type="number" inputMode="numeric" min={1} max={MAX_QUANTITY} step={1} value={value} onChange={(e) => onChange(clampQuantity(e.target.value))} onBlur={() => value === "" && onChange(1)} className="h-11 w-24 rounded-xl border border-neutral-300 bg-white px-3 text-center text-lg" />
        <button type="button" onClick={() => onChange(stepQuantity(value, 1))} aria-label={t("site.moreTrees")} data-testid={`${testId}plus`} className="h-11 w-11 rounded-full border border-emerald-800 text-xl font-bold">
          +
        </button>
      </div>
    </div>
  );
}
