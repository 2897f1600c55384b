import { CheckoutReturnScreen, MyOrdersScreen } from "./cart";
import { OrderScreen } from "./order-page";

/** The shop's built-in screens (`site-part.tsx`), in a chunk of their own. */
export default function CommerceScreen({ screen }: { screen: "checkout-success" | "checkout-cancel" | "orders" | "order" }) {
  if (screen === "orders") return <MyOrdersScreen />;
  if (screen === "order") return <OrderScreen />;
  return <CheckoutReturnScreen canceled={screen === "checkout-cancel"} />;
}
