import { useTranslation } from "@/i18n";
import { Button } from "@/ui/button";

/** Previous / "page n of m" / next. Without a known page count, `more` says whether a next page may exist. */
export function Pager({ label, page, pages, more, onPage }: { label: string; page: number; pages: number | null; more: boolean; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  return (
    <nav className="flex items-center gap-2 text-sm" aria-label={label}>
      <Button size="sm" variant="outline" disabled={page === 0} onClick={() => onPage(Math.max(0, page - 1))}>
        {t("admin.previous")}
      </Button>
      <span>{pages !== null ? t("admin.pageOf", { page: page + 1, pages }) : t("admin.page", { page: page + 1 })}</span>
      <Button size="sm" variant="outline" disabled={pages !== null ? page + 1 >= pages : !more} onClick={() => onPage(page + 1)}>
        {t("admin.next")}
      </Button>
    </nav>
  );
}
