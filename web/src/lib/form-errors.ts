import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import { ApiError } from "@/api/http";

/**
 * Puts a failed call's messages on the form: each `fields` entry on its field (when the form has
 * it), and the first message on `root` so the form's message area shows it.
 */
export function applyServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  known: readonly string[],
): string {
  const message = error instanceof ApiError ? error.first : error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    for (const [field, messages] of Object.entries(error.fields)) {
      const name = field.split(".")[0] ?? field;
      // The account endpoints call the email `login`.
      const root = name === "login" && known.includes("email") ? "email" : name;
      if (known.includes(root) && messages[0]) {
        setError(root as Path<T>, { type: "server", message: messages[0] });
      }
    }
  }
  setError("root.server" as Path<T>, { type: "server", message });
  return message;
}
