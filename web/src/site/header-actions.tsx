import { Search } from "lucide-react";
import { lazy, type ReactNode, Suspense } from "react";
import { Link, useNavigate } from "react-router";
import { isGuest, type Subject, useLogout, useMe } from "@/lib/session";
import { useTranslation } from "@/i18n";
import { useHydrated } from "@/lib/client-only";
import { AUTH_PATH, useLink } from "./link";
import { headerButtons } from "./slots";
import { Button } from "@/ui/button";
import { cn } from "@/ui/cn";

// What a signed-in visitor sees in the header comes in chunks of its own, once the session is
// known: the account's menu, and the buttons the modules register (`site/slots.ts`).
const LazyAccountMenu = lazy(() => import("./account-menu"));

/** Where the account's entries lead (paths without the language). */
export const ACCOUNT_PATHS = {
  signIn: `${AUTH_PATH}/select-method`,
  register: `${AUTH_PATH}/email-and-password/registration`,
  settings: "/rbac/subjects/settings",
  orders: "/ecommerce/orders",
  chats: "/social/chats",
} as const;

/**
 * Who the visitor is, as the screens show it: `pending` on the server, while hydrating and while
 * the session is asked; `visitor` without a subject; `guest` for a checkout's anonymous subject
 * (`isGuest`: shown as a visitor, but it has a cart); `person` for an account signed in.
 */
export type Session = { kind: "pending" | "visitor"; subject: null } | { kind: "guest" | "person"; subject: Subject };

export function useSession(): Session {
  const me = useMe();
  const hydrated = useHydrated();
  // The server never knows the session: hydration renders what it rendered.
  if (!hydrated || me.isPending) return { kind: "pending", subject: null };
  const s = me.data;
  if (!s) return { kind: "visitor", subject: null };
  return { kind: isGuest(s) ? "guest" : "person", subject: s };
}

/** `children` for a session of `kinds`, after hydration (the server never knows the session). */
function When({ kinds, children, fallback = null }: { kinds: Session["kind"][]; children: ReactNode; fallback?: ReactNode }) {
  const session = useSession();
  if (!kinds.includes(session.kind)) return fallback;
  return <Suspense fallback={fallback}>{children}</Suspense>;
}

/** The chats button with the unread count (signed-in people; a guest has no chats). */
export function ChatButton() {
  const Chat = headerButtons.chat;
  if (!Chat) return null;
  return (
    <When kinds={["person"]}>
      <Chat />
    </When>
  );
}

/** The cart button and its sheet (signed-in people, and guests: their cart is theirs). */
export function CartButton() {
  const Cart = headerButtons.cart;
  if (!Cart) return null;
  return (
    <When kinds={["person", "guest"]}>
      <Cart />
    </When>
  );
}

/** The site's search (`/{lang}/search`): an icon in the header, a line of the mobile menu with `label`. */
export function SearchLink({ className, label = false }: { className?: string; label?: boolean }) {
  const { t } = useTranslation();
  const link = useLink();
  return (
    <Link to={link("/search")} className={className} aria-label={label ? undefined : t("admin.search")} title={label ? undefined : t("admin.search")} data-testid="search-link">
      <Search aria-hidden className="h-5 w-5 shrink-0" />
      {label ? <span>{t("admin.search")}</span> : null}
    </Link>
  );
}

/** The account button's place while the session is asked. */
export function AccountPlaceholder() {
  return <span className="h-9 w-20" aria-hidden />;
}

/** 'Sign in', to the sign-in page in the current language. */
export function LoginButton() {
  const { t } = useTranslation();
  const link = useLink();
  const navigate = useNavigate();
  return (
    <Button variant="outline" className="shrink-0" onClick={() => void navigate(link(ACCOUNT_PATHS.signIn))} data-testid="login-button">
      {t("account.login")}
    </Button>
  );
}

/** 'Sign in' for a visitor or a guest, the account's menu for a person (a placeholder while the session is asked). */
export function AccountMenu() {
  const session = useSession();
  if (session.kind === "pending") return <AccountPlaceholder />;
  if (session.kind !== "person") return <LoginButton />;
  return (
    <Suspense fallback={<AccountPlaceholder />}>
      <LazyAccountMenu />
    </Suspense>
  );
}

/** Signs out, then goes home (`/`, as the spec's logout does). */
export function useSignOut() {
  const logout = useLogout();
  const navigate = useNavigate();
  return () => logout.mutate(undefined, { onSettled: () => void navigate("/") });
}

/** Which account entry a link target is (`/ru/rbac/subject/authentication/select-method` → `signIn`), if any. */
export function accountEntryOf(url: string | null | undefined): "signIn" | "register" | null {
  if (!url || url.includes(":")) return null;
  const path = url.replace(/[?#].*$/, "").replace(/^\/[a-z]{2}(?=\/)/, "").replace(/\/+$/, "");
  if (path === ACCOUNT_PATHS.signIn) return "signIn";
  if (path === ACCOUNT_PATHS.register) return "register";
  return null;
}

/**
 * A link of the site's content to the sign-in or registration screen (the footer's 'Members'
 * column): in the header's words for a visitor or a guest; for a signed-in person, the account
 * ('Account', to the settings) in place of sign-in and 'Sign out' in place of registration.
 */
export function AccountEntryLink({ entry, className, children }: { entry: "signIn" | "register"; className?: string; children?: ReactNode }) {
  const { t } = useTranslation();
  const link = useLink();
  const session = useSession();
  const signOut = useSignOut();
  if (session.kind === "person") {
    if (entry === "register") {
      return (
        <button type="button" className={cn("cursor-pointer", className)} onClick={signOut} data-account-entry="signOut">
          {children}
          {t("account.logout")}
        </button>
      );
    }
    return (
      <Link to={link(ACCOUNT_PATHS.settings)} className={className} data-account-entry="account">
        {children}
        {t("account.account")}
      </Link>
    );
  }
  return (
    <Link to={link(ACCOUNT_PATHS[entry])} className={className} data-account-entry={entry}>
      {children}
      {entry === "signIn" ? t("account.login") : t("account.register")}
    </Link>
  );
}

/**
 * The account's entries as a list of links (the mobile menu): sign-in and registration for a
 * visitor or a guest; settings, orders, chats, the admin (for an admin) and sign-out for a person.
 */
export function AccountEntries({ className, itemClassName }: { className?: string; itemClassName?: string }) {
  const { t } = useTranslation();
  const link = useLink();
  const session = useSession();
  const signOut = useSignOut();
  if (session.kind === "pending") return null;
  const person = session.kind === "person";
  const entries: [string, string][] = person
    ? [
        [link(ACCOUNT_PATHS.settings), t("account.settings")],
        [link(ACCOUNT_PATHS.orders), t("commerce.myOrders")],
        [link(ACCOUNT_PATHS.chats), t("chat.chats")],
        ...(session.subject.admin ? [["/admin", t("account.admin")] as [string, string]] : []),
      ]
    : [
        [link(ACCOUNT_PATHS.signIn), t("account.login")],
        [link(ACCOUNT_PATHS.register), t("account.register")],
      ];
  return (
    <ul className={className} data-testid="account-entries" data-session={session.kind}>
      {entries.map(([to, text]) => (
        <li key={to}>
          <Link to={to} className={itemClassName}>
            {text}
          </Link>
        </li>
      ))}
      {person ? (
        <li>
          <button type="button" onClick={signOut} className={cn("cursor-pointer text-left", itemClassName)}>
            {t("account.logout")}
          </button>
        </li>
      ) : null}
    </ul>
  );
}
