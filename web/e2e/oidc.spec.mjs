// Sign in with an OpenID Connect provider (issue 51, part 3) through a real browser: the login
// screen offers "Sign in with Example ID" (the harness's local fake provider), the browser goes to
// the provider and back, and lands signed in where it started; a refused sign-in comes back to
// the login screen saying why, in the visitor's language.
import { expect, screen, watchedContext } from "./harness.mjs";

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };

export const oidcSpecs = [
  [
    "oidc: the login screen offers the provider; the browser signs in there and lands back signed in, by the keyboard",
    async (stack, s) => {
      s.oidc = await watchedContext(stack, { viewport: DESKTOP });
      const { page } = s.oidc;
      await page.goto("/en/rbac/subject/authentication/select-method?redirect=%2Fen%2F");
      const button = page.getByRole("link", { name: "Sign in with Example ID" });
      await button.waitFor();
      await screen(page, "oidc-login-en-desktop");
      // Keyboard only: Tab reaches it, Enter follows it.
      await button.focus();
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === "/en/");
      const trigger = page.getByTestId("account-menu");
      await trigger.waitFor();
      expect((await trigger.getAttribute("title")) === "ada@example.com", "signed in as the provider's person, named by the address");
      const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
      expect(me?.identities?.some((i) => i.provider === "oidc"), `an oidc identity: ${JSON.stringify(me?.identities)}`);
      // The account page names the method by the provider, not by a key.
      await page.goto("/en/rbac/subjects/settings");
      await page.getByTestId("identity").first().waitFor();
      const row = await page.getByTestId("identity").first().innerText();
      expect(row.includes("Example ID") && !row.includes("oidc"), `the identity row reads '${row}'`);
      await screen(page, "oidc-settings-en-desktop");
    },
  ],
  [
    "oidc: a refused sign-in says why on the login screen, in ru and en, at 390 px",
    async (stack, s) => {
      s.oidcPhone = await watchedContext(stack, { viewport: PHONE });
      const { page } = s.oidcPhone;
      for (const [lang, words] of [
        ["ru", "Эта ссылка для входа уже использована или устарела"],
        ["en", "That sign-in link was already used or has expired"],
      ]) {
        // A callback without the flow's cookie (another browser, or a replay): refused.
        await page.goto(`/api/rbac/subjects/authentication/oidc/callback?code=x&state=y`);
        await page.waitForURL((u) => u.pathname.endsWith("/rbac/subject/authentication/select-method"));
        await page.goto(`/${lang}/rbac/subject/authentication/select-method?oidcError=state&redirect=%2F${lang}%2F`);
        const alert = page.getByTestId("oidc-error");
        await alert.waitFor();
        const text = await alert.innerText();
        expect(text.includes(words), `the reason in ${lang}: ${text}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
        expect(!wide, `no sideways scroll at 390 px (${lang})`);
        await screen(page, `oidc-refused-${lang}-phone`);
      }
    },
  ],
];
