/** The cart button, in a chunk of its own (`site/header-actions.tsx`). */
export { CartButton as default } from "./cart";
