/** The cart button, in a chunk of its own (`site-part.tsx`). */
export { CartButton as default } from "./cart";
