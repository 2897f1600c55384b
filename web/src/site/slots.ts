import type { ComponentType, ReactElement } from "react";
import { followLive, type LiveFollower } from "@/lib/live-bridge";

/** The header's places for a module's button (`site/header-actions.tsx` decides who sees each). */
export type HeaderButton = "chat" | "cart";

/**
 * What a module adds to the public site (`modules/<module>/site-part.tsx`): screens of built-in
 * routes, buttons of the header, and what it does with the live connection. The app registers
 * every module's part before it renders (`app.tsx`); the site kit renders what was registered and
 * imports no module.
 */
export interface SitePart {
  /** Built-in route (`built-in-routes.json`) → its screen, a `lazyPart` of the module's (a chunk
   * of its own that the server renders at once). */
  screens?: Record<string, ReactElement>;
  /** The header's buttons, each `React.lazy`: a chunk of its own, loaded once the session is known. */
  header?: Partial<Record<HeaderButton, ComponentType>>;
  /** What the module does with the live connection of the signed-in subject. */
  live?: LiveFollower;
  /** Variants this module adds to a lower module's widget and renders in its own part:
   * widget's module → its variants (`{rbac: ["subject-list-social-module-profile-default"]}`). */
  adds?: { by: string; to: Record<string, readonly string[]> };
}

/** Module → variant of its widget → the module that added it and renders it. */
const added: Record<string, Record<string, string>> = {};

/** The module whose part renders `variant` of a `module` widget: the one that added it, else
 * `module`. */
export function addedBy(module: string, variant: string): string {
  return added[module]?.[variant] ?? module;
}

/** Built-in route → the screen a module registered for it (`site/builtin.tsx` reads it). */
export const builtInScreens: Record<string, ReactElement> = {};
/** The header's buttons the modules registered. */
export const headerButtons: Partial<Record<HeaderButton, ComponentType>> = {};

/** Adds `parts` to the site. */
export function registerSite(...parts: SitePart[]) {
  for (const p of parts) {
    Object.assign(builtInScreens, p.screens);
    Object.assign(headerButtons, p.header);
    if (p.live) followLive(p.live);
    for (const [module, variants] of Object.entries(p.adds?.to ?? {})) {
      for (const v of variants) (added[module] ??= {})[v] = p.adds!.by;
    }
  }
}
