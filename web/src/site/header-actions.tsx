import { lazy, type ReactNode, Suspense } from "react";
import { useNavigate } from "react-router";
import { useMe } from "@/modules/rbac/session";
import { useTranslation } from "@/i18n";
import { useHydrated } from "@/lib/client-only";
import { AUTH_PATH, useLink } from "./link";
import { Button } from "@/ui/button";

// What a signed-in visitor sees in the header comes in chunks of its own, once the session is known.
const LazyChatButton = lazy(() => import("@/social/chat-button"));
const LazyCartButton = lazy(() => import("@/commerce/cart-button"));
const LazyAccountMenu = lazy(() => import("@/modules/rbac/account-menu"));

/** `children` for a signed-in visitor, after hydration (the server never knows the session). */
function SignedIn({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  const me = useMe();
  const hydrated = useHydrated();
  if (!hydrated || !me.data?.id) return fallback;
  return <Suspense fallback={fallback}>{children}</Suspense>;
}

/** The chats button with the unread count (signed-in visitors). */
export function ChatButton() {
  return (
    <SignedIn>
      <LazyChatButton />
    </SignedIn>
  );
}

/** The cart button and its sheet (signed-in visitors, guests with a cart included). */
export function CartButton() {
  return (
    <SignedIn>
      <LazyCartButton />
    </SignedIn>
  );
}

/** The account button's place while the session is asked. */
export function AccountPlaceholder() {
  return <span className="h-9 w-20" aria-hidden />;
}

/** 'Login', to the sign-in page in the current language. */
export function LoginButton() {
  const { t } = useTranslation();
  const link = useLink();
  const navigate = useNavigate();
  return (
    <Button variant="outline" onClick={() => void navigate(link(`${AUTH_PATH}/select-method`))}>
      {t("account.login")}
    </Button>
  );
}

/** 'Login' for a visitor, the account's menu once signed in (a placeholder while the session is asked). */
export function AccountMenu() {
  const me = useMe();
  const hydrated = useHydrated();
  // The server never knows the session: hydration renders what it rendered.
  if (!hydrated || me.isPending) return <AccountPlaceholder />;
  if (!me.data) return <LoginButton />;
  return (
    <SignedIn fallback={<AccountPlaceholder />}>
      <LazyAccountMenu />
    </SignedIn>
  );
}
