//! What the shop's own screens share: the way they ask a visitor to sign in.
import { Link, useLocation, useParams } from "react-router";
import { signInHref } from "@/site/link";
import { cn } from "@/ui/cn";
import { useShopT } from "./i18n";

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
