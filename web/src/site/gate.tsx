// Gates for the screens that need a session (the account's, the cart, the chats): `AuthGate` shows
// its children to a visitor with a session only, `Authorized` only to one the server lets call a
// route. Both show a skeleton while they ask.
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTranslation } from "@/i18n";
import { useHydrated } from "@/lib/client-only";
import { errorMessage } from "@/lib/form-errors";
import { cn } from "@/ui/cn";
import { type HttpMethod, isAuthorized, isGuest, type Subject, useMe } from "@/lib/session";

/** A placeholder while the session is asked: announced as busy, a few pulsing bars. */
export function GateSkeleton({ className }: { className?: string }) {
  const { t } = useTranslation();
  return (
    <output aria-busy="true" data-testid="gate-skeleton" className={cn("mx-auto grid w-full max-w-3xl gap-3 px-4 py-10", className)}>
      <span className="sr-only">{t("site.loading")}</span>
      <div aria-hidden className="h-7 w-1/3 animate-pulse rounded-md bg-muted" />
      <div aria-hidden className="h-16 w-full animate-pulse rounded-lg bg-muted" />
      <div aria-hidden className="h-16 w-full animate-pulse rounded-lg bg-muted" />
    </output>
  );
}

/**
 * `children` when the visitor has a subject (a function of children gets the subject), `fallback`
 * when not, a skeleton while the session is asked. The server never knows the session, so the
 * first (hydrating) render is the skeleton too. With `guests={false}` a guest (`isGuest`: a
 * checkout's anonymous subject) gets the fallback too, as any visitor who is not signed in: the
 * account's own screens; a guest's cart and orders are its own and leave it at the default.
 */
export function AuthGate({
  children,
  fallback = null,
  skeleton,
  guests = true,
}: {
  children: ReactNode | ((subject: Subject) => ReactNode);
  fallback?: ReactNode;
  skeleton?: ReactNode;
  guests?: boolean;
}) {
  const me = useMe();
  const hydrated = useHydrated();
  if (!hydrated || me.isPending) return skeleton ?? <GateSkeleton />;
  const s = me.data;
  if (!s || (!guests && isGuest(s))) return fallback;
  return typeof children === "function" ? children(s) : children;
}

/** The query key of an `Authorized` check: under `session`, so a sign-in or sign-out asks again. */
export const authorizedKey = (method: HttpMethod, route: string) => ["session", "authorized", method, route] as const;

/** `children` when the server lets the visitor call `method route` (`is-authorized`), 'Not
 * authorized' (or `fallback`) when it does not (401, 403), a skeleton while it is asked. */
export function Authorized({ method = "GET", route, children, fallback }: { method?: HttpMethod; route: string; children: ReactNode; fallback?: ReactNode }) {
  const { t } = useTranslation();
  const allowed = useQuery({ queryKey: authorizedKey(method, route), queryFn: () => isAuthorized(method, route) });
  if (allowed.isPending) return <GateSkeleton />;
  if (allowed.data) return children;
  // The check itself failed (the server down): say that, not that access is refused.
  if (allowed.isError) {
    return (
      <p role="alert" className="mx-auto max-w-3xl px-4 py-10 text-sm text-destructive">
        {errorMessage(allowed.error, t)}
      </p>
    );
  }
  return (
    fallback ?? (
      <p role="alert" data-testid="not-authorized" className="mx-auto max-w-3xl px-4 py-10 text-lg font-medium">
        {t("site.notAuthorized")}
      </p>
    )
  );
}
