//! What the shop's own screens share: their title in the browser tab and the way they ask a
//! visitor to sign in.
import { useEffect } from "react";
import { Link, useLocation, useParams } from "react-router";
import { signInHref } from "@/site/link";
import { cn } from "@/ui/cn";
import { useShopT } from "./i18n";

/**
 * Names the browser tab after the screen. The site route around a built-in screen titles the
 * tab once it has mounted (its effect runs after ours), so ours is set just after it.
 */
export function useScreenTitle(title: string) {
  useEffect(() => {
    let live = true;
    queueMicrotask(() => {
      if (live) document.title = title;
    });
    return () => {
      live = false;
    };
  }, [title]);
}

/** The sign-in screen, coming back to `to` (the current page by default) afterwards. */
export function useSignInHref(to?: string): string {
  const { lang = "ru" } = useParams();
  const { pathname, search } = useLocation();
  return signInHref(lang, to ?? `${pathname}${search}`);
}

/** `text` and a 'Sign in' link that brings the visitor back here. */
export function SignInPrompt({ text, className }: { text: string; className?: string }) {
  const t = useShopT();
  const href = useSignInHref();
  return (
    <div className={cn("rounded-xl border border-emerald-200 bg-emerald-50 p-4", className)} data-testid="sign-in-prompt">
      <p className="text-emerald-950">{text}</p>
      <Link to={href} className="mt-3 inline-flex h-10 items-center rounded-full bg-emerald-800 px-5 font-semibold text-white hover:bg-emerald-700">
        {t("shop.signIn")}
      </Link>
    </div>
  );
}
