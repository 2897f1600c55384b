import { useQuery } from "@tanstack/react-query";
import { Popover } from "radix-ui";
import { useDeferredValue, useState } from "react";
import { useTranslation } from "@/i18n";
import { entityClient, keys } from "@/api/entities";
import { findEntity } from "@/api/meta";
import { Input } from "@/ui/input";
import { rowTitle } from "../schema";
import type { WidgetProps } from "./types";

/** A searchable select of the records of the referenced entity (server-side search). */
export function ReferenceWidget({ id, field, value, onChange, meta, lang, disabled, invalid }: WidgetProps) {
  const { t } = useTranslation();
  const target = field.target ? findEntity(meta, field.target) : undefined;
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search);
  const selected = typeof value === "string" && value ? value : null;
  const client = target ? entityClient(target) : null;
  const params = { search: deferred, page: 0, size: 20 };
  const list = useQuery({
    queryKey: target ? keys.list(target.path, params) : ["none"],
    queryFn: () => client!.list(params),
    enabled: open && !!client,
  });
  const current = useQuery({
    queryKey: target && selected ? keys.one(target.path, selected) : ["none"],
    queryFn: () => client!.one(selected!),
    enabled: !!client && !!selected,
  });
  const label = selected ? (current.data && target ? rowTitle(target, current.data, lang) : selected) : t("admin.selectPlaceholder");
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger
        id={id}
        disabled={disabled}
        aria-invalid={invalid || undefined}
        aria-haspopup="listbox"
        className="flex h-9 w-full items-center justify-between rounded-md border border-border bg-white px-3 text-left text-sm disabled:opacity-60"
      >
        <span className="truncate">{label}</span>
        <span aria-hidden>▾</span>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content align="start" sideOffset={4} className="z-[60] w-[var(--radix-popover-trigger-width)] rounded-md border border-border bg-white p-2 shadow-lg">
          <Input placeholder={t("admin.search")} aria-label={`${t("admin.search")} ${field.target ?? ""}`} value={search} onChange={(e) => setSearch(e.target.value)} />
          <ul aria-label={field.name} className="mt-2 max-h-64 overflow-y-auto">
            {!field.required ? (
              <li>
                <button type="button" className="w-full rounded px-2 py-1.5 text-left text-sm hover:bg-muted" onClick={() => (onChange(null), setOpen(false))}>
                  {t("admin.none")}
                </button>
              </li>
            ) : null}
            {(list.data?.data ?? []).map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  className="w-full rounded px-2 py-1.5 text-left text-sm hover:bg-muted"
                  onClick={() => {
                    onChange(r.id);
                    setOpen(false);
                  }}
                >
                  {target ? rowTitle(target, r, lang) : r.id}
                  <span className="ml-2 text-xs text-muted-foreground">{r.id.slice(0, 8)}</span>
                </button>
              </li>
            ))}
            {list.data && list.data.data.length === 0 ? <li className="px-2 py-1.5 text-sm text-muted-foreground">{t("admin.noFound")}</li> : null}
          </ul>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
