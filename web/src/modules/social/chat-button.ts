/** The chats button, in a chunk of its own (`site-part.tsx`). */
export { ChatButton as default } from "./chat";
