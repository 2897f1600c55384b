import type { components } from "@/api/schema";

/** What the server put in the page (`<script id="stoa-page">`): read once, before the first render. */
export interface Boot {
  site: {
    languages: string[];
    defaultLanguage: string;
    /** The username of the site's Telegram bot (the Login Widget links accounts with it); absent
     * or null when the site has none. */
    telegramBot?: string | null;
    /** The sign-in methods the site offers (`email_and_password`, `ethereum_virtual_machine`),
     * when the server says; absent: see `walletOffered` (`modules/rbac/methods.ts`). */
    signInMethods?: string[] | null;
    /** The OpenID Connect provider visitors may sign in with (`{name: "Google"}`); absent or
     * null when the site has none. */
    oidc?: { name: string } | null;
  };
  lang: string;
  url: string;
  status: number;
  /** The page's records as the server sent them (`HostPageBundle`), read by the site kit as its
   * `Bundle` (`site/content.ts`). */
  bundle: components["schemas"]["HostPageBundle"] | null;
}

function read(): Boot | null {
  if (typeof document === "undefined") return null;
  const el = document.getElementById("stoa-page");
  if (!el?.textContent) return null;
  try {
    return JSON.parse(el.textContent) as Boot;
  } catch {
    return null;
  }
}

/** The page's boot data: read from the document in the browser; set per render on the server. */
export let boot: Boot | null = read();

/** Sets the boot data (the server renderer, before each page). */
export function setBoot(next: Boot | null): void {
  boot = next;
}
