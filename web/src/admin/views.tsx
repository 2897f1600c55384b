import type { ComponentType } from "react";
import { InboxView } from "@/modules/billing/admin";
import { OrdersView, SalesCard } from "@/modules/ecommerce/admin";
import { MediaLibrary } from "@/modules/file-storage/admin";

export interface ViewProps {
  lang: string;
}

/** Screens a module gives an entity instead of the generic table (the table stays one click away). */
export const entityViews: Record<string, ComponentType<ViewProps>> = {
  "ecommerce.order": OrdersView,
  "billing.webhook": InboxView,
  "file-storage.file": MediaLibrary,
};

/** Cards of the admin's start page. */
export const dashboardCards: { key: string; Card: ComponentType<ViewProps> }[] = [{ key: "ecommerce.sales", Card: SalesCard }];
