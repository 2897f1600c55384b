/** The chats button, in a chunk of its own (`site/header-actions.tsx`). */
export { ChatButton as default } from "./chat";
