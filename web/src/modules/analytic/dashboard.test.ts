import { chartGeometry, funnelSteps, niceMax, overallConversion, percent } from "./dashboard";

describe("the analytics dashboard's arithmetic", () => {
  it("rounds a chart's top up to 1, 2 or 5 × 10ⁿ", () => {
    expect([0, 1, 2, 3, 7, 10, 11, 26, 99, 101, 4999, 5001].map(niceMax)).toEqual([1, 1, 2, 5, 10, 10, 20, 50, 100, 200, 5000, 10000]);
  });

  it("draws a bar of views and a point of visitors per day", () => {
    const g = chartGeometry(
      [
        { day: "2026-03-01", views: 0, visitors: 0 },
        { day: "2026-03-02", views: 10, visitors: 4 },
        { day: "2026-03-03", views: 5, visitors: 5 },
        { day: "2026-03-04", views: 20, visitors: 10 },
      ],
      400,
      100,
    );
    expect(g.max).toBe(20);
    expect(g.bars.map((b) => b.height)).toEqual([0, 50, 25, 100]);
    expect(g.bars.map((b) => b.y)).toEqual([100, 50, 75, 0]);
    expect(g.bars[1]).toMatchObject({ x: 101, width: 98 });
    expect(g.line).toBe("50,100 150,80 250,75 350,50");
  });

  it("keeps a sliver for a day with few views, and copes with no days", () => {
    const g = chartGeometry(
      [
        { day: "a", views: 1, visitors: 1 },
        { day: "b", views: 1000, visitors: 1 },
      ],
      100,
      100,
    );
    expect(g.bars[0]!.height).toBe(1);
    expect(chartGeometry([], 100, 100)).toMatchObject({ max: 1, bars: [], line: "" });
  });

  it("gives each funnel step its conversion from the step before", () => {
    expect(funnelSteps({ views: 200, started: 10, paid: 4 })).toEqual([
      { key: "views", value: 200, ofPrevious: null, ofFirst: 1 },
      { key: "started", value: 10, ofPrevious: 0.05, ofFirst: 0.05 },
      { key: "paid", value: 4, ofPrevious: 0.4, ofFirst: 0.02 },
    ]);
    expect(funnelSteps({ views: 0, started: 0, paid: 0 }).map((s) => s.ofPrevious)).toEqual([null, null, null]);
    expect(overallConversion({ views: 200, started: 10, paid: 4 })).toBe(0.02);
    expect(overallConversion({ views: 0, started: 0, paid: 1 })).toBeNull();
  });

  it("formats shares as percentages in the reader's language", () => {
    expect(percent(0.05, "en")).toBe("5%");
    expect(percent(0.4, "en")).toBe("40%");
    expect(percent(0.0123, "en")).toBe("1.23%");
    expect(percent(0.125, "ru")).toMatch(/^12,5\s?%$/);
    expect(percent(null, "en")).toBe("—");
  });
});
