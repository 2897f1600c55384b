import { lazy } from "react";
import { lazyPart } from "@/lib/lazy-part";
import type { SitePart } from "@/site/slots";
import { rbacAdded } from "./added";

// The shop's screens are a chunk of their own, out of the public entry (the server renders them at
// once); the cart button too, loaded once the session is known.
const Commerce = lazyPart(() => import("./built-in"));
const CartButton = lazy(() => import("./cart-button"));

/** The shop on the public site: the checkout's return, the orders, and the cart in the header. */
export const sitePart: SitePart = {
  screens: {
    "/ecommerce/checkout/success": <Commerce screen="checkout-success" />,
    "/ecommerce/checkout/cancel": <Commerce screen="checkout-cancel" />,
    "/ecommerce/orders": <Commerce screen="orders" />,
    "/ecommerce/orders/*": <Commerce screen="order" />,
  },
  header: { cart: CartButton },
  adds: { by: "ecommerce", to: { rbac: rbacAdded } },
};
