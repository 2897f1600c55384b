import { ForgotPasswordScreen, RegistrationScreen, ResetPasswordScreen } from "./forms";
import { LogoutScreen, SelectMethodScreen, SettingsScreen } from "./screens";
import { VerifyEmailScreen } from "./verify-email";

const SCREENS = {
  "select-method": SelectMethodScreen,
  registration: RegistrationScreen,
  "forgot-password": ForgotPasswordScreen,
  "reset-password": ResetPasswordScreen,
  logout: LogoutScreen,
  settings: SettingsScreen,
  "verify-email": VerifyEmailScreen,
};

/** The account's built-in screens (`site-part.tsx`), in a chunk of their own. */
export default function AccountScreen({ screen }: { screen: keyof typeof SCREENS }) {
  const Screen = SCREENS[screen];
  return <Screen />;
}
