import { api } from "@/api/client";
import { useTranslation } from "@/i18n";
import { errorMessage } from "@/lib/form-errors";
import { Button } from "@/ui/button";

/** The error screen without a `/500` page: what went wrong, in the page's language, and Reload. */
export default function ErrorFallback({ error }: { error?: unknown }) {
  const { t } = useTranslation();
  const reload = async () => {
    await api.get("/api/revalidation/revalidate").catch(() => undefined);
    window.location.reload();
  };
  return (
    <section className="mx-auto flex max-w-7xl flex-col items-center gap-4 px-4 py-24 text-center">
      <h1 className="text-2xl font-semibold">{error === undefined ? t("site.error") : errorMessage(error, t, t("site.error"))}</h1>
      <Button onClick={() => void reload()}>{t("site.reload")}</Button>
    </section>
  );
}
