import { CheckoutReturnScreen, MyOrdersScreen } from "./cart";

/** The shop's built-in screens (`site/builtin.tsx`), in a chunk of their own. */
export default function CommerceScreen({ screen }: { screen: "checkout-success" | "checkout-cancel" | "orders" }) {
  if (screen === "orders") return <MyOrdersScreen />;
  return <CheckoutReturnScreen canceled={screen === "checkout-cancel"} />;
}
