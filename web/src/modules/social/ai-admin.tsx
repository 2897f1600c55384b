import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { api } from "@/api/client";
import { useAiT } from "./ai-i18n";

/** Under an AI assistant profile's form: whether it answers (an AI service set up on the server),
 * with which model, and this month's tokens against its budget. Nothing for a person's profile. */
export function AiProfilePanel({ id, lang }: { id: string; lang: string }) {
  const t = useAiT();
  const base = useId();
  const state = useQuery({ queryKey: ["admin", "social-ai", id], queryFn: () => api.get("/api/social/profiles/{id}/ai", { params: { path: { id } } }) });
  const s = state.data;
  if (!s?.assistant) return null;
  const n = (x: number) => x.toLocaleString(lang);
  return (
    <section aria-labelledby={`${base}-h`} className="grid gap-2 rounded-lg border border-border p-3" data-testid="ai-profile-panel">
      <h3 id={`${base}-h`} className="font-semibold">
        {t("ai.title")}
      </h3>
      {s.configured ? (
        <>
          <p className="text-sm">{t("ai.on", { model: s.model ?? "" })}</p>
          <p className="text-sm" data-testid="ai-usage">
            {t("ai.usage", { used: n(s.used), budget: n(s.budget) })}
          </p>
          {s.used >= s.budget ? <p className="text-sm font-medium text-amber-900">{t("ai.spent")}</p> : null}
        </>
      ) : (
        <p className="rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950" data-testid="ai-off">
          {t("ai.off")}
        </p>
      )}
      <p className="text-sm text-neutral-700">{t("ai.how")}</p>
    </section>
  );
}
