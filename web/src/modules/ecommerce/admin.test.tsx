import { describe, expect, it } from "vitest";
import { lastDays, ORDER_STATUSES } from "./admin";

describe("sales chart days", () => {
  it("lists the last n UTC days, oldest first, ending today", () => {
    const now = Date.UTC(2026, 2, 1, 0, 30); // 1 March, just after midnight UTC
    expect(lastDays(3, now)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
    expect(lastDays(30, now)).toHaveLength(30);
    expect(new Set(lastDays(30, now)).size).toBe(30);
  });
});

describe("order statuses", () => {
  it("follow the lifecycle and have a title in both languages", async () => {
    const { en } = await import("@/i18n/en");
    const { ru } = await import("@/i18n/ru");
    expect(ORDER_STATUSES[0]).toBe("new");
    for (const s of ORDER_STATUSES) {
      expect(en.commerce.status[s]).toBeTruthy();
      expect(ru.commerce.status[s]).toBeTruthy();
      expect(ru.commerce.status[s]).not.toBe(en.commerce.status[s]);
    }
  });
});
