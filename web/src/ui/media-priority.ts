import { createContext } from "react";

/** True inside the page's first image-bearing block: its images load at once, first. */
export const MediaPriority = createContext(false);
