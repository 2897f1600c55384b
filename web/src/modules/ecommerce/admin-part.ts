import type { AdminPart } from "@/admin/registry";
import { OrdersView, SalesCard } from "./admin";

/** Ecommerce in the admin: the orders screen and the start page's sales card. */
export const adminPart: AdminPart = {
  views: { "ecommerce.order": OrdersView },
  cards: [{ key: "ecommerce.sales", order: 30, Card: SalesCard }],
};
