import type { TFunction } from "@/i18n";
import type { ComponentType } from "react";

/** What every admin view and card gets. */
export interface ViewProps {
  lang: string;
}

/** What a panel under a saved record's form gets. */
export interface RecordPanelProps {
  id: string;
  lang: string;
}

/** A screen of the admin that is not an entity's, linked above the models (`/admin/<path>`). */
export interface AdminScreen {
  path: string;
  /** Where it stands among the screens (lower first). */
  order: number;
  title: (t: TFunction) => string;
  Screen: ComponentType<ViewProps>;
}

/** A card of the admin's start page. */
export interface DashboardCard {
  key: string;
  /** Where it stands among the cards (lower first). */
  order: number;
  Card: ComponentType<ViewProps>;
}

/**
 * What a module adds to the admin (`modules/<module>/admin-part.ts`): screens it gives its
 * entities instead of the generic table, panels under a saved record's form, screens of its own
 * and cards of the start page. The admin iterates what was registered; it imports no module.
 */
export interface AdminPart {
  /** Entity key (`ecommerce.order`) → the screen shown instead of the generic table. */
  views?: Record<string, ComponentType<ViewProps>>;
  /** Entity key → the panel under a saved record's form (its actions on that record). */
  panels?: Record<string, ComponentType<RecordPanelProps>>;
  screens?: AdminScreen[];
  cards?: DashboardCard[];
}

/** Entity key → its screen (the admin's own, then the modules'). */
export const entityViews: Record<string, ComponentType<ViewProps>> = {};
/** Entity key → its record panel. */
export const recordPanels: Record<string, ComponentType<RecordPanelProps>> = {};
/** Screens that are not an entity's, by their order. */
export const adminScreens: AdminScreen[] = [];
/** The start page's cards, by their order. */
export const dashboardCards: DashboardCard[] = [];

/** Adds `parts` to the admin; a screen or card already registered (same path or key) is kept. */
export function registerAdmin(...parts: AdminPart[]) {
  for (const p of parts) {
    Object.assign(entityViews, p.views);
    Object.assign(recordPanels, p.panels);
    for (const s of p.screens ?? []) if (!adminScreens.some((x) => x.path === s.path)) adminScreens.push(s);
    for (const c of p.cards ?? []) if (!dashboardCards.some((x) => x.key === c.key)) dashboardCards.push(c);
  }
  adminScreens.sort((a, b) => a.order - b.order);
  dashboardCards.sort((a, b) => a.order - b.order);
}
