/** The chats screen (`site/builtin.tsx`), in a chunk of its own. */
export { ChatsScreen as default } from "./chat";
