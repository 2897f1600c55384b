// Accounts end to end: registration and the address confirmed with the mailed code, sessions,
// password change and reset by mail, change of email, the confirmation mail's link, wallet sign-in
// and an email added to the wallet's account.
import { confirmation, holding, mailText } from "./smtp-sink.mjs";
import { expect, screen, signIn, watchedContext } from "./harness.mjs";

const AUTH = "/en/rbac/subject/authentication";
const EMAIL = "walker@e2e.test";
const FIRST = "first password 123";
const SECOND = "second password 456";
const THIRD = "third password 789";
const NEW_EMAIL = "walker.new@e2e.test";
const LINKER = { email: "linker@e2e.test", password: "linker password 123" };
const WALLET_EMAIL = "wallet.owner@e2e.test";
// A throw-away test key (never used on a real chain).
const WALLET_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

async function login(page, email, password) {
  await signIn(page, { email, password });
  await page.getByTestId("account-menu").waitFor();
}

/** The code of the newest confirmation mail to `to`. */
async function confirmationMail(stack, to) {
  return confirmation(await stack.smtp.waitFor(to, 15000, holding("verify-email?")));
}

/** Waits for a toast saying `text`. */
function toast(page, text) {
  return page.locator("[data-sonner-toast]").getByText(text).waitFor();
}

async function logout(page) {
  await page.goto("/en/");
  await page.getByTestId("account-menu").click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  // Logout goes to '/', which is the default language's home (ru).
  await page.waitForURL((u) => u.pathname === "/ru");
  await page.getByRole("button", { name: "Войти" }).waitFor();
  const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
  expect(me === null, "signed out");
}

export const accountSpecs = [
  [
    "account: register → the code step → the mailed code confirms the address; log out, log in, change the password",
    async (stack, s) => {
      s.a = await watchedContext(stack);
      const { page } = s.a;
      await page.goto(`${AUTH}/email-and-password/registration`);
      await page.getByRole("heading", { name: "Create an account" }).waitFor();
      await page.getByText("Already have an account?").waitFor();
      await screen(page, "account-registration");
      await page.getByLabel("Email").fill(EMAIL);
      await page.getByLabel("Password").fill(FIRST);
      await page.getByRole("button", { name: "Create an account" }).click();
      await page.getByTestId("account-menu").waitFor();
      // The card turns into the code step: the code is in the mail to the address.
      const step = page.getByTestId("verification-step");
      await page.getByRole("heading", { name: "Confirm your email" }).waitFor();
      await step.getByText(`We sent a 6-digit code to ${EMAIL}`).waitFor();
      await page.getByRole("link", { name: "Later" }).waitFor();
      await screen(page, "account-registration-verify");
      const { code } = await confirmationMail(stack, EMAIL);
      await step.getByLabel("Confirmation code").fill(code);
      await step.getByRole("button", { name: "Confirm", exact: true }).click();
      await toast(page, "Email address confirmed");
      await step.waitFor({ state: "detached" });
      await page.goto("/en/rbac/subjects/settings");
      const confirmed = page.locator('[data-testid=identity][data-confirmed="true"]');
      await confirmed.getByText(EMAIL, { exact: true }).waitFor();
      expect((await page.getByTestId("identity-unconfirmed").count()) === 0, "no 'Not confirmed' badge once the code is entered");
      expect((await page.getByText("Not confirmed").count()) === 0, "no 'Not confirmed' text once the code is entered");
      await page.goto("/en/");
      await page.getByTestId("account-menu").click();
      await page.getByRole("menu").getByText(EMAIL).waitFor();
      expect(!/\buser\b/.test(await page.getByRole("menu").innerText()), "no role chip in the account menu");
      await page.getByRole("menuitem", { name: "Settings" }).waitFor();
      await screen(page, "account-dropdown");
      await page.keyboard.press("Escape");
      await logout(page);

      await page.goto(`${AUTH}/select-method`);
      await page.getByText("Forgot your password?").waitFor();
      await page.getByText("Don't have an account?").waitFor();
      await screen(page, "account-login");
      await login(page, EMAIL, FIRST);

      await page.goto("/en/rbac/subjects/settings");
      const identity = page.getByTestId("identity");
      await identity.getByText("Email", { exact: true }).waitFor();
      await identity.getByText(EMAIL).waitFor();
      await identity.getByRole("button", { name: "Delete" }).waitFor();
      await screen(page, "account-settings");
      await identity.getByRole("button", { name: "Change Password" }).click();
      const dialog = page.getByRole("dialog", { name: "Change Password" });
      await dialog.getByText("Update your account password.").waitFor();
      await dialog.getByLabel("Current password").fill(FIRST);
      await dialog.getByLabel("New password").fill(SECOND);
      await screen(page, "account-change-password");
      await dialog.getByRole("button", { name: "Update password" }).click();
      await page.getByText("Password updated").waitFor();
      await dialog.waitFor({ state: "detached" });
      await logout(page);
      await login(page, EMAIL, SECOND);
      await logout(page);
    },
  ],
  [
    "account: forgot password → 'Reset link sent' → the mail's link → reset → 'Password reset successfully' → log in with the new password",
    async (stack, s) => {
      const { page } = s.a;
      await page.goto(`${AUTH}/email-and-password/forgot-password`);
      await page.getByLabel("Email").fill(EMAIL);
      await screen(page, "account-forgot-password");
      await page.getByRole("button", { name: "Send reset link" }).click();
      await page.getByText("If an account uses this email").waitFor();
      await toast(page, "Reset link sent");
      await screen(page, "account-forgot-password-sent");
      // The address also got its confirmation code: the reset mail is the one with the link.
      const mail = await stack.smtp.waitFor(EMAIL, 15000, holding("reset-password?code="));
      const link = /https?:\/\/[^\s"<>]+reset-password\?code=[A-Za-z0-9._~%-]+/.exec(mailText(mail.raw))?.[0];
      expect(link, `the mail holds a reset link:\n${mailText(mail.raw)}`);
      // The link is in the language the reset was asked in (English here).
      const reset = new URL(link);
      expect(reset.pathname.startsWith("/en/"), `the reset link is in English: ${link}`);
      await page.goto(`${reset.pathname}${reset.search}`);
      await page.getByRole("heading", { name: "Reset password" }).waitFor();
      await page.locator("#reset-password").fill(THIRD);
      await page.locator("#reset-confirmation").fill(THIRD);
      await screen(page, "account-reset-password");
      await page.locator("form button[type=submit]").click();
      await page.locator("output").waitFor();
      await toast(page, "Password reset successfully");
      // The address was confirmed before the reset: nothing was removed.
      expect((await page.getByTestId("reset-removed").count()) === 0, "a reset of a confirmed address removes nothing");
      await screen(page, "account-reset-done");
      await login(page, EMAIL, THIRD);
      await screen(page, "account-signed-in");
    },
  ],
  [
    "account: change email → the code mailed to the new address → the settings show the new email",
    async (stack, s) => {
      const { page } = s.a;
      await page.goto("/en/rbac/subjects/settings");
      const identity = page.getByTestId("identity");
      await identity.getByText(EMAIL, { exact: true }).waitFor();
      await identity.getByRole("button", { name: "Change email" }).click();
      const dialog = page.getByRole("dialog", { name: "Change email" });
      await dialog.getByLabel("New email").fill(NEW_EMAIL);
      await dialog.getByLabel("Current password").fill(THIRD);
      await screen(page, "account-change-email");
      await dialog.getByRole("button", { name: "Send the code" }).click();
      const step = dialog.getByTestId("verification-step");
      await step.getByText(`We sent a 6-digit code to ${NEW_EMAIL}`).waitFor();
      await screen(page, "account-change-email-code");
      // Until the code is entered, the address stays the old one and the change waits.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await identity.getByText(EMAIL, { exact: true }).waitFor();
      const pending = identity.getByTestId("identity-pending");
      await pending.getByText(`Changing to ${NEW_EMAIL} — enter the code sent there`).waitFor();
      await screen(page, "account-settings-email-pending");
      await pending.getByRole("button", { name: "Enter the code" }).click();
      const confirm = page.getByRole("dialog", { name: "Confirm your email" });
      const { code } = await confirmationMail(stack, NEW_EMAIL);
      await confirm.getByLabel("Confirmation code").fill(code);
      await confirm.getByRole("button", { name: "Confirm", exact: true }).click();
      await toast(page, "Email address confirmed");
      await confirm.waitFor({ state: "detached" });
      await identity.getByText(NEW_EMAIL, { exact: true }).waitFor();
      await pending.waitFor({ state: "detached" });
      expect((await identity.getByText(EMAIL, { exact: true }).count()) === 0, "the old address is gone from the settings");
      await screen(page, "account-settings-email-changed");
      await logout(page);
      await login(page, NEW_EMAIL, THIRD);
      await logout(page);
    },
  ],
  [
    "account: 'Later', then the confirmation mail's link: sign in to the account first, confirm, the settings show the address confirmed",
    async (stack, s) => {
      s.linker = await watchedContext(stack);
      const { page } = s.linker;
      await page.goto(`${AUTH}/email-and-password/registration`);
      await page.getByLabel("Email").fill(LINKER.email);
      await page.getByLabel("Password").fill(LINKER.password);
      await page.getByRole("button", { name: "Create an account" }).click();
      await page.getByTestId("verification-step").waitFor();
      await page.getByRole("link", { name: "Later" }).click();
      await page.getByTestId("verification-step").waitFor({ state: "detached" });
      await page.goto("/en/rbac/subjects/settings");
      const identity = page.getByTestId("identity");
      await identity.getByTestId("identity-unconfirmed").getByText("Not confirmed").waitFor();
      await screen(page, "account-settings-unconfirmed");
      await identity.getByRole("button", { name: "Confirm", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Confirm your email" });
      await dialog.getByText(`We sent a 6-digit code to ${LINKER.email}`).waitFor();
      await screen(page, "account-verify-dialog");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await logout(page);

      // The mail's link is in the language the account was made in (English); the same link on
      // the Russian site works alike, query and all.
      const mail = await confirmationMail(stack, LINKER.email);
      const sent = new URL(mail.link);
      expect(sent.pathname.startsWith("/en/"), `the link is in English: ${mail.link}`);
      await page.goto(`${sent.pathname.replace(/^\/en\//, "/ru/")}${sent.search}`);
      await page.waitForURL((u) => u.pathname === "/ru/rbac/subject/verify-email" && u.searchParams.get("code") === mail.code);
      const ask = page.getByTestId("verify-sign-in");
      await ask.getByText("Войдите в аккаунт, адрес которого подтверждаете").waitFor();
      await screen(page, "account-verify-email-signed-out");
      await ask.getByRole("link", { name: "Войти" }).click();
      const form = page.getByRole("form", { name: "Вход" });
      await form.getByLabel("Email").fill(LINKER.email);
      await form.getByLabel("Пароль", { exact: true }).fill(LINKER.password);
      await form.getByRole("button", { name: "Войти" }).click();
      // Back on the link's page, signed in: the code is there, and nothing was sent on load.
      await page.waitForURL((u) => u.pathname === "/ru/rbac/subject/verify-email" && u.searchParams.get("identity") === mail.identity);
      const code = page.getByLabel("Код подтверждения");
      await code.waitFor();
      expect((await code.inputValue()) === mail.code, "the link's code is filled in");
      expect((await page.getByTestId("verify-done").count()) === 0, "nothing is confirmed before the button");
      await screen(page, "account-verify-email");
      await page.getByRole("button", { name: "Подтвердить email" }).click();
      const done = page.getByTestId("verify-done");
      await done.getByText("Ваш адрес почты подтверждён.").waitFor();
      await screen(page, "account-verify-email-done");
      await done.getByRole("link", { name: "Перейти в настройки" }).click();
      await page.waitForURL((u) => u.pathname === "/ru/rbac/subjects/settings");
      await page.locator('[data-testid=identity][data-confirmed="true"]').getByText(LINKER.email, { exact: true }).waitFor();
      expect((await page.getByTestId("identity-unconfirmed").count()) === 0, "no 'Не подтверждён' badge after the link's code");
      await s.linker.context.close();
    },
  ],
  [
    "account: wallet sign-in through an injected window.ethereum backed by a test key; an email added to the wallet's account and confirmed",
    async (stack) => {
      const { privateKeyToAccount } = await import("viem/accounts");
      const account = privateKeyToAccount(WALLET_KEY);
      const w = await watchedContext(stack, {
        init: async (context) => {
          await context.exposeBinding("e2eSign", async (_src, message) => account.signMessage({ message: { raw: message } }));
          await context.addInitScript((address) => {
            const listeners = {};
            window.ethereum = {
              isMetaMask: true,
              async request({ method, params }) {
                switch (method) {
                  case "eth_requestAccounts":
                  case "eth_accounts":
                    return [address];
                  case "eth_chainId":
                    return "0x1";
                  case "net_version":
                    return "1";
                  case "personal_sign":
                    return window.e2eSign(params[0]);
                  case "wallet_requestPermissions":
                  case "wallet_getPermissions":
                    return [{ parentCapability: "eth_accounts" }];
                  case "wallet_revokePermissions":
                  case "wallet_switchEthereumChain":
                    return null;
                  default:
                    throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
                }
              },
              on(event, fn) {
                (listeners[event] ??= []).push(fn);
              },
              removeListener(event, fn) {
                listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn);
              },
            };
          }, account.address);
        },
      });
      const { page } = w;
      await page.goto(`${AUTH}/select-method`);
      // The wallet method shows where the browser has a wallet (this one is injected).
      await page.getByRole("button", { name: "Sign in with an Ethereum wallet" }).click();
      await page.getByTestId("account-menu").waitFor();
      const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
      const linked = me?.identities?.find((i) => i.provider === "ethereum_virtual_machine");
      expect(linked && linked.account.toLowerCase() === account.address.toLowerCase(), `signed in with the wallet: ${JSON.stringify(me?.identities)}`);
      await page.goto("/en/rbac/subjects/settings");
      await page.getByTestId("identity").getByText("Ethereum wallet").waitFor();
      await screen(page, "account-wallet-settings");
      // No email identity: the email-add form, then the code step for the address.
      const add = page.getByTestId("email-add");
      await add.getByPlaceholder("Type your email").fill(WALLET_EMAIL);
      await add.getByLabel("Password").fill(FIRST);
      await add.getByRole("button", { name: "Add", exact: true }).click();
      const step = add.getByTestId("verification-step");
      await step.getByText(`We sent a 6-digit code to ${WALLET_EMAIL}`).waitFor();
      await page.locator('[data-testid=identity][data-provider="email_and_password"]').getByTestId("identity-unconfirmed").waitFor();
      await screen(page, "account-email-add-verify");
      const { code } = await confirmationMail(stack, WALLET_EMAIL);
      await step.getByLabel("Confirmation code").fill(code);
      await step.getByRole("button", { name: "Confirm", exact: true }).click();
      await toast(page, "Email address confirmed");
      await add.waitFor({ state: "detached" });
      await page.locator('[data-testid=identity][data-confirmed="true"]').getByText(WALLET_EMAIL, { exact: true }).waitFor();
      s_problems.push(...w.problems);
    },
  ],
];

// Problems from contexts made inside a spec, reported by the runner.
export const s_problems = [];
