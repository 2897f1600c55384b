import { useCallback, useEffect, useRef, useState } from "react";

export type FormStatus = "idle" | "pending" | "success" | "error";

/** How long success and error stay on screen before the form returns to idle (SPEC §9). */
export const STATUS_RESET_MS = 5000;

/**
 * The submit status machine: idle → pending → success | error → idle after 5 s.
 * `run` wraps the submit; a new run cancels the pending reset.
 */
export function useFormStatus(resetMs = STATUS_RESET_MS) {
  const [status, setStatus] = useState<FormStatus>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const settle = useCallback(
    (next: "success" | "error") => {
      setStatus(next);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setStatus("idle"), resetMs);
    },
    [resetMs],
  );
  const run = useCallback(
    async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
      clearTimeout(timer.current);
      setStatus("pending");
      try {
        const out = await work();
        settle("success");
        return out;
      } catch (e) {
        settle("error");
        throw e;
      }
    },
    [settle],
  );
  return { status, run };
}
