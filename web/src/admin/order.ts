import type { Row } from "@/api/entities";

// The order of linked records (a page's blocks, an article's files): `orderIndex`, then when linked.

/** The links in their order (`orderIndex`, then when linked). */
export function ordered(links: readonly Row[]): Row[] {
  return [...links].sort((a, b) => Number(a.orderIndex ?? 0) - Number(b.orderIndex ?? 0) || String(a.createdAt ?? "").localeCompare(String(b.createdAt ?? "")));
}

/** The position each link must take for `order` (only the ones that change). */
export function renumber(order: readonly Row[]): { id: string; orderIndex: number }[] {
  return order.flatMap((l, i) => (Number(l.orderIndex ?? 0) === i ? [] : [{ id: l.id, orderIndex: i }]));
}
