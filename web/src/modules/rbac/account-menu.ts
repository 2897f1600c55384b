/** The signed-in account menu, in a chunk of its own (`site/header-actions.tsx`). */
export { AccountMenu as default } from "./screens";
