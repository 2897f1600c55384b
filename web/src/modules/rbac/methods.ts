//! Which sign-in methods the login screen offers.
import { useHydrated } from "@/lib/client-only";
import { boot } from "@/lib/boot";

/** The wallet's provider (Sign-In with Ethereum). */
export const WALLET_PROVIDER = "ethereum_virtual_machine";

/**
 * Whether the login screen offers the Ethereum wallet: as the site's `signInMethods` say when the
 * server sends them; without them, only in a browser that has a wallet (`window.ethereum`), where
 * it can work — a donor on a phone without one is not shown a method they cannot use.
 */
export function walletOffered(methods: readonly string[] | null | undefined, hasWallet: boolean): boolean {
  if (Array.isArray(methods)) return methods.includes(WALLET_PROVIDER) && hasWallet;
  return hasWallet;
}

/** `walletOffered` for this page: false on the server and while hydrating (the server knows no wallet). */
export function useWalletOffered(): boolean {
  const hydrated = useHydrated();
  const hasWallet = hydrated && typeof window !== "undefined" && !!(window as { ethereum?: unknown }).ethereum;
  return walletOffered(boot?.site.signInMethods, hasWallet);
}

/** The OpenID Connect provider's name when the site offers sign-in with it (`Google`), else null. */
export function oidcName(): string | null {
  return boot?.site.oidc?.name ?? null;
}

/** Where a browser goes to sign in with the provider (or, `link`, to add it to the signed-in
 * account), coming back to `redirect` (a path of this site). */
export function oidcStartUrl(redirect: string, lang: string, link = false): string {
  const q = new URLSearchParams({ redirect, lang });
  if (link) q.set("link", "1");
  return `/api/rbac/subjects/authentication/oidc/start?${q.toString()}`;
}
