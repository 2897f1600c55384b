// Accounts end to end: registration, sessions, password change and reset by mail, wallet sign-in.
import { mailText } from "./smtp-sink.mjs";
import { expect, screen, signIn, watchedContext } from "./harness.mjs";

const AUTH = "/en/rbac/subject/authentication";
const EMAIL = "walker@e2e.test";
const FIRST = "first password 123";
const SECOND = "second password 456";
const THIRD = "third password 789";
// A throw-away test key (never used on a real chain).
const WALLET_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

async function login(page, email, password) {
  await signIn(page, { email, password });
  await page.getByTestId("account-menu").waitFor();
}

async function logout(page) {
  await page.goto("/en/");
  await page.getByTestId("account-menu").click();
  await page.getByRole("menuitem", { name: "Logout" }).click();
  // Logout goes to '/', which is the default language's home (ru).
  await page.waitForURL((u) => u.pathname === "/ru");
  await page.getByRole("button", { name: "Войти" }).waitFor();
  const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
  expect(me === null, "signed out");
}

export const accountSpecs = [
  [
    "register, log out, log in, change the password",
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
      await page.goto("/en/");
      await page.getByTestId("account-menu").click();
      await page.getByRole("menu").getByText("user").waitFor();
      await page.getByRole("menuitem", { name: "Settings" }).waitFor();
      await screen(page, "account-dropdown");
      await page.keyboard.press("Escape");
      await logout(page);

      await page.goto(`${AUTH}/select-method`);
      await page.getByText("Forgot your password?").waitFor();
      await page.getByText("Don't have an account?").waitFor();
      await page.getByText("Or continue with").waitFor();
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
    "forgot password → the mail's link → reset → log in with the new password",
    async (stack, s) => {
      const { page } = s.a;
      await page.goto(`${AUTH}/email-and-password/forgot-password`);
      await page.getByLabel("Email").fill(EMAIL);
      await screen(page, "account-forgot-password");
      await page.getByRole("button", { name: "Send reset link" }).click();
      await page.getByText("If an account uses this email").waitFor();
      const mail = await stack.smtp.waitFor(EMAIL);
      const link = /https?:\/\/[^\s"<>]+reset-password\?code=[A-Za-z0-9._~%-]+/.exec(mailText(mail.raw))?.[0];
      expect(link, `the mail holds a reset link:\n${mailText(mail.raw)}`);
      await page.goto(link);
      await page.locator("#reset-password").fill(THIRD);
      await page.locator("#reset-confirmation").fill(THIRD);
      await screen(page, "account-reset-password");
      await page.locator("form button[type=submit]").click();
      await page.locator("output").waitFor();
      await login(page, EMAIL, THIRD);
      await screen(page, "account-signed-in");
    },
  ],
  [
    "wallet sign-in through an injected window.ethereum backed by a test key",
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
      await page.getByText("Ethereum Virtual Machine").first().click();
      await page.getByRole("button", { name: "Connect Wallet" }).click();
      await page.getByTestId("account-menu").waitFor();
      const me = await page.evaluate(async () => (await (await fetch("/api/rbac/subjects/authentication/me")).json()).data);
      const linked = me?.identities?.find((i) => i.provider === "ethereum_virtual_machine");
      expect(linked && linked.account.toLowerCase() === account.address.toLowerCase(), `signed in with the wallet: ${JSON.stringify(me?.identities)}`);
      await page.goto("/en/rbac/subjects/settings");
      await page.getByTestId("identity").getByText("EVM").waitFor();
      await screen(page, "account-wallet-settings");
      s_problems.push(...w.problems);
    },
  ],
];

// Problems from contexts made inside a spec, reported by the runner.
export const s_problems = [];
