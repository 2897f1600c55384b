import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { api } from "@/api/client";
import { entityName, useMeta } from "@/api/meta";
import { ApiError } from "@/api/http";
import { Button } from "@/ui/button";
import { CopyField } from "@/ui/copy-field";
import { useHooksT } from "./i18n";

const ENDPOINT = "/api/webhook/endpoints/{id}";
const DELIVERY = "/api/webhook/deliveries/{id}";

function failure(e: unknown, fallback: string) {
  toast.error(e instanceof ApiError ? e.first : fallback);
}

/** The signing secret of an endpoint: shown on request, copied, or replaced by a new one. */
function Secret({ id }: { id: string }) {
  const t = useHooksT();
  const base = useId();
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const show = useMutation({
    mutationFn: () => api.get(`${ENDPOINT}/secret`, { params: { path: { id } } }),
    onSuccess: (r) => setSecret(r.secret),
    onError: (e) => failure(e, t("hooks.failed")),
  });
  const rotate = useMutation({
    mutationFn: () => api.post(`${ENDPOINT}/secret`, { params: { path: { id } } }),
    onSuccess: (r) => {
      setSecret(r.secret);
      setConfirming(false);
      toast.success(t("hooks.rotated"));
    },
    onError: (e) => failure(e, t("hooks.failed")),
  });
  return (
    <div className="grid gap-2" data-testid="webhook-secret">
      <h4 id={`${base}-h`} className="font-semibold">
        {t("hooks.secret")}
      </h4>
      <p className="text-sm text-neutral-700">{t("hooks.secretHelp")}</p>
      {secret ? (
        <CopyField value={secret} label={t("hooks.secret")} copyLabel={t("hooks.copy")} onCopied={() => toast.success(t("hooks.copied"))} testId="webhook-secret-value">
          <Button type="button" variant="ghost" size="sm" onClick={() => setSecret(null)}>
            {t("hooks.hide")}
          </Button>
        </CopyField>
      ) : (
        <div>
          <Button type="button" variant="outline" size="sm" disabled={show.isPending} onClick={() => show.mutate()} data-testid="webhook-secret-show">
            {t("hooks.show")}
          </Button>
        </div>
      )}
      {confirming ? (
        <div role="alertdialog" aria-labelledby={`${base}-c`} className="grid gap-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
          <p id={`${base}-c`}>{t("hooks.rotateConfirm")}</p>
          <div className="flex flex-wrap gap-2">
            <Button type="button" size="sm" disabled={rotate.isPending} onClick={() => rotate.mutate()} data-testid="webhook-secret-rotate-yes">
              {t("hooks.rotateYes")}
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setConfirming(false)}>
              {t("hooks.cancel")}
            </Button>
          </div>
        </div>
      ) : (
        <div>
          <Button type="button" variant="ghost" size="sm" onClick={() => setConfirming(true)} data-testid="webhook-secret-rotate">
            {t("hooks.rotate")}
          </Button>
        </div>
      )}
    </div>
  );
}

/** "Send a test event": a webhook.ping sent now, and what the address answered. */
function TestPing({ id }: { id: string }) {
  const t = useHooksT();
  const qc = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.post(`${ENDPOINT}/test`, { params: { path: { id } } }),
    // The address's delivery list below shows the test's delivery.
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["entity"] }),
    onError: (e) => failure(e, t("hooks.failed")),
  });
  const d = test.data;
  return (
    <div className="grid gap-2">
      <p className="text-sm text-neutral-700">{t("hooks.testHelp")}</p>
      <div>
        <Button type="button" variant="outline" size="sm" disabled={test.isPending} onClick={() => test.mutate()} data-testid="webhook-test">
          {t("hooks.test")}
        </Button>
      </div>
      <p aria-live="polite" className="text-sm" data-testid="webhook-test-result">
        {d
          ? d.status === "delivered"
            ? t("hooks.testDelivered", { status: d.responseStatus ?? "", ms: d.durationMs ?? 0 })
            : t("hooks.testFailed", { error: d.error ?? "" })
          : null}
      </p>
    </div>
  );
}

/** Every event an address may subscribe to, named in words (the kind of record and what
 * happened), with the name to type: closed until asked for. */
function EventList({ lang }: { lang: string }) {
  const t = useHooksT();
  const meta = useMeta();
  const [open, setOpen] = useState(false);
  const names = useQuery({ queryKey: ["admin", "webhook-event-types"], queryFn: () => api.get("/api/webhook/event-types"), enabled: open });
  const words = (name: string) => {
    const parts = name.split(".");
    const action = parts.pop() ?? "";
    const e = meta.data?.entities.find((x) => x.module === parts[0] && x.name === parts[1]);
    return `${e ? entityName(e, lang) : parts.join(".")}: ${t(`hooks.action.${action}`, { defaultValue: action })}`;
  };
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)} data-testid="webhook-event-list">
      <summary className="cursor-pointer font-semibold">{t("hooks.events")}</summary>
      <p className="mt-2 text-sm text-neutral-700">{t("hooks.eventsHelp")}</p>
      <ul className="mt-2 grid gap-1 text-sm">
        {(names.data ?? []).map((n) => (
          <li key={n} className="flex flex-wrap justify-between gap-x-3 border-b border-border py-1">
            <span>{words(n)}</span>
            <code className="text-xs">{n}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Under a webhook address's form: its signing secret, a test event and the events to choose from. */
export function EndpointPanel({ id, lang }: { id: string; lang: string }) {
  const base = useId();
  const t = useHooksT();
  return (
    <section aria-labelledby={`${base}-h`} className="grid gap-4 rounded-lg border border-border p-3" data-testid="webhook-endpoint-panel">
      <h3 id={`${base}-h`} className="sr-only">
        {t("hooks.secret")}
      </h3>
      <Secret id={id} />
      <TestPing id={id} />
      <EventList lang={lang} />
    </section>
  );
}

/** Under a webhook delivery's form: the body that was sent, and "Send again". */
export function DeliveryPanel({ id }: { id: string; lang: string }) {
  const base = useId();
  const t = useHooksT();
  const delivery = useQuery({
    queryKey: ["admin", "webhook-delivery", id],
    queryFn: () => api.get(DELIVERY, { params: { path: { id } } }),
  });
  const eventId = delivery.data?.eventId;
  const event = useQuery({
    queryKey: ["admin", "webhook-event", eventId],
    enabled: !!eventId,
    queryFn: () => api.get("/api/webhook/events/{id}", { params: { path: { id: eventId ?? "" } } }),
  });
  const qc = useQueryClient();
  const replay = useMutation({
    mutationFn: () => api.post(`${DELIVERY}/replay`, { params: { path: { id } } }),
    onSuccess: () => {
      toast.success(t("hooks.replayed"));
      void qc.invalidateQueries({ queryKey: ["entity"] });
    },
    onError: (e) => failure(e, t("hooks.failed")),
  });
  return (
    <section aria-labelledby={`${base}-h`} className="grid gap-3 rounded-lg border border-border p-3" data-testid="webhook-delivery-panel">
      <h3 id={`${base}-h`} className="font-semibold">
        {t("hooks.replay")}
      </h3>
      <p className="text-sm text-neutral-700">{t("hooks.replayHelp")}</p>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="button" variant="outline" size="sm" disabled={replay.isPending} onClick={() => replay.mutate()} data-testid="webhook-replay">
          {t("hooks.replay")}
        </Button>
        {replay.data ? (
          <Link className="text-sm underline underline-offset-4" to={`/admin/webhook/delivery?edit=${encodeURIComponent(replay.data.id)}`}>
            {t("hooks.openReplay")}
          </Link>
        ) : null}
      </div>
      {event.data ? (
        <details>
          <summary className="cursor-pointer font-semibold">{t("hooks.body")}</summary>
          <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-muted p-2 text-xs" data-testid="webhook-event-body">
            {JSON.stringify(event.data.payload, null, 2)}
          </pre>
        </details>
      ) : null}
    </section>
  );
}
