import { lazy } from "react";
import { lazyPart } from "@/lib/lazy-part";
import type { SitePart } from "@/site/slots";
import { rbacAdded } from "./added";
import { chatEvents } from "./live";

// The chats screen is a chunk of its own, out of the public entry (the server renders it at once);
// the chats button too, loaded once the session is known.
const ChatsScreen = lazyPart(() => import("./built-in"));
const ChatButton = lazy(() => import("./chat-button"));

/** The chats on the public site: their screen, the button in the header, their live events. */
export const sitePart: SitePart = {
  screens: { "/social/chats": <ChatsScreen /> },
  header: { chat: ChatButton },
  live: chatEvents,
  adds: { by: "social", to: { rbac: rbacAdded } },
};
