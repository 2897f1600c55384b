import { useQuery } from "@tanstack/react-query";
import { Popover } from "radix-ui";
import { useDeferredValue, useState } from "react";
import { useTranslation } from "@/i18n";
import { entityClient, keys } from "@/api/entities";
import { entityName, fieldName, findEntity, inPhrase } from "@/api/meta";
import { ExternalLink } from "lucide-react";
import { Input } from "@/ui/input";
import { AdminLink, recordHref } from "../records";
import { useRecordsT } from "../records-i18n";
import { rowDetail, rowTitle } from "../schema";
import type { WidgetProps } from "./types";

/**
 * A searchable select of the records of the referenced entity: the server's search (adminTitle,
 * slug and the translated titles, in every language), each record by its title in the admin's
 * language with its admin title and slug beside; the chosen record links to its admin page.
 */
export function ReferenceWidget({ id, field, value, onChange, meta, lang, disabled, invalid }: WidgetProps) {
  const { t } = useTranslation();
  const rt = useRecordsT();
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
    <div className="flex items-center gap-2">
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
          <Popover.Content align="start" sideOffset={4} aria-label={fieldName(field, lang)} className="z-[60] w-[var(--radix-popover-trigger-width)] rounded-md border border-border bg-white p-2 shadow-lg">
            <Input placeholder={t("admin.search")} aria-label={target ? `${t("admin.search")}: ${inPhrase(entityName(target, lang, true))}` : t("admin.search")} value={search} onChange={(e) => setSearch(e.target.value)} />
            <ul aria-label={fieldName(field, lang)} className="mt-2 max-h-64 overflow-y-auto">
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
                    {target && rowDetail(target, r, lang) ? <span className="ml-2 text-xs text-neutral-700">{rowDetail(target, r, lang)}</span> : null}
                  </button>
                </li>
              ))}
              {list.data && list.data.data.length === 0 ? <li className="px-2 py-1.5 text-sm text-muted-foreground">{t("admin.noFound")}</li> : null}
            </ul>
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      {selected && target ? (
        <AdminLink
          to={recordHref(target, selected)}
          aria-label={rt("records.open", { name: label })}
          title={`${target.module}.${target.name} ${selected}`}
          className="inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md border border-border hover:bg-muted"
          data-testid="reference-open"
        >
          <ExternalLink aria-hidden className="h-4 w-4" />
        </AdminLink>
      ) : null}
    </div>
  );
}
