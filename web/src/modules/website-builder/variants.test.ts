import type { Rec } from "@/site/content";
import { campaignOf, DEFAULT_CAMPAIGN } from "./variants";

const widget = (options?: unknown): Rec => ({ id: "w", _entity: "website-builder.widget", variant: "content-block-for-planet-target", ...(options === undefined ? {} : { options }) });

describe("campaignOf", () => {
  it("reads the goal and the offset from the widget's options", () => {
    expect(campaignOf(widget({ goal: 500_000, offset: 1_200 }))).toEqual({ goal: 500_000, offset: 1_200 });
  });

  it("falls back to the default campaign for what the data lacks or gets wrong", () => {
    expect(DEFAULT_CAMPAIGN).toEqual({ goal: 1_000_000, offset: 66_713 });
    expect(campaignOf(widget())).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget(null))).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget({ goal: 0, offset: -1 }))).toEqual(DEFAULT_CAMPAIGN);
    expect(campaignOf(widget({ goal: "1000", offset: 5 }))).toEqual({ goal: 1_000_000, offset: 5 });
  });
});
