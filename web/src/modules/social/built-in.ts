/** The chats screen (`site-part.tsx`), in a chunk of its own. */
export { ChatsScreen as default } from "./chat";
