import { useCallback, useState } from "react";
import { Button } from "@/ui/button";
import { Dialog, DialogContent } from "@/ui/dialog";
import { useToolsT } from "./i18n";
import { SHORTCUTS, useAdminShortcuts } from "./shortcuts";

/** The admin's keyboard shortcuts: the listener, a header button and the `?` dialog that lists them. */
export function AdminShortcuts() {
  const tt = useToolsT();
  const [open, setOpen] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useAdminShortcuts(show);
  return (
    <>
      <Button size="sm" variant="outline" onClick={show} aria-label={tt("keys.open")} title={tt("keys.open")} aria-keyshortcuts="?">
        ?
      </Button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent title={tt("keys.title")} className="w-[min(28rem,calc(100vw-2rem))]">
          <table className="w-full text-sm" data-testid="shortcuts">
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.id} className="border-t border-border first:border-t-0">
                  <th scope="row" className="whitespace-nowrap py-2 pr-4 text-left font-normal">
                    {s.keys.map((k, i) => (
                      <span key={k}>
                        {i ? " + " : ""}
                        <kbd className="rounded border border-border bg-muted px-1.5 py-0.5 font-mono text-xs">{k}</kbd>
                      </span>
                    ))}
                  </th>
                  <td className="py-2">{tt(`keys.${s.id}`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="mt-3 text-sm text-neutral-700">{tt("keys.note")}</p>
        </DialogContent>
      </Dialog>
    </>
  );
}
