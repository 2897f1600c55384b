import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import { api } from "@/api/client";
import { ApiError } from "@/api/http";
import { Button } from "@/ui/button";
import { CopyField } from "@/ui/copy-field";
import { Input, Label } from "@/ui/input";
import { useKeysT } from "./api-key-i18n";

const KEY = "/api/rbac/api-keys/{id}";

/** Under an API key's form: make its token (shown once, copied), make a new one, and how an agent
 * connects with it. */
export function ApiKeyPanel({ id }: { id: string; lang: string }) {
  const t = useKeysT();
  const base = useId();
  const qc = useQueryClient();
  const [token, setToken] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const record = useQuery({ queryKey: ["admin", "api-key", id], queryFn: () => api.get(KEY, { params: { path: { id } } }) });
  const prefix = record.data?.tokenPrefix ?? null;
  const make = useMutation({
    mutationFn: () => api.post(`${KEY}/token`, { params: { path: { id } } }),
    onSuccess: (r) => {
      setToken(r.token);
      setConfirming(false);
      toast.success(t("keys.made"));
      void qc.invalidateQueries({ queryKey: ["admin", "api-key", id] });
      void qc.invalidateQueries({ queryKey: ["entity"] });
    },
    onError: (e) => toast.error(e instanceof ApiError ? e.first : t("keys.failed")),
  });
  const mcp = `${window.location.origin}/mcp`;
  return (
    <section aria-labelledby={`${base}-h`} className="grid gap-4 rounded-lg border border-border p-3" data-testid="api-key-panel">
      <div className="grid gap-2">
        <h3 id={`${base}-h`} className="font-semibold">
          {t("keys.title")}
        </h3>
        {token ? (
          <div className="grid gap-2">
            <p className="text-sm font-medium text-amber-900">
              {t("keys.once")}
            </p>
            <CopyField value={token} label={t("keys.value")} copyLabel={t("keys.copy")} onCopied={() => toast.success(t("keys.copied"))} testId="api-key-token" />
          </div>
        ) : (
          <p className="text-sm text-neutral-700">{prefix ? t("keys.has", { prefix }) : t("keys.none")}</p>
        )}
        {confirming ? (
          <div role="alertdialog" aria-labelledby={`${base}-c`} className="grid gap-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
            <p id={`${base}-c`}>{t("keys.remakeConfirm")}</p>
            <div className="flex flex-wrap gap-2">
              <Button type="button" size="sm" disabled={make.isPending} onClick={() => make.mutate()} data-testid="api-key-remake-yes">
                {t("keys.remakeYes")}
              </Button>
              <Button type="button" size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                {t("keys.cancel")}
              </Button>
            </div>
          </div>
        ) : (
          <div>
            <Button
              type="button"
              variant="outline"
              size="sm"
              disabled={make.isPending || record.isLoading}
              onClick={() => (prefix || token ? setConfirming(true) : make.mutate())}
              data-testid="api-key-make"
            >
              {prefix || token ? t("keys.remake") : t("keys.make")}
            </Button>
          </div>
        )}
      </div>
      <div className="grid gap-2">
        <h4 className="font-semibold">{t("keys.connect")}</h4>
        <p className="text-sm text-neutral-700">{t("keys.connectHelp")}</p>
        <div className="flex flex-wrap items-center gap-2">
          <Label htmlFor={`${base}-m`}>{t("keys.address")}</Label>
          <Input id={`${base}-m`} readOnly value={mcp} className="max-w-md font-mono text-xs" onFocus={(e) => e.currentTarget.select()} />
        </div>
      </div>
    </section>
  );
}
