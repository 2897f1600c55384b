import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { COUNTER_KEY, COUNTER_POLL_MS, followCounterWithoutLive } from "./counter";

describe("the campaign counter on an open page", () => {
  afterEach(() => vi.useRealTimers());

  it("is asked for again only while the live channel is down and the page is shown", async () => {
    vi.useFakeTimers();
    const qc = new QueryClient();
    let calls = 0;
    const observer = new QueryObserver(qc, { queryKey: COUNTER_KEY, queryFn: async () => ++calls });
    const off = observer.subscribe(() => undefined);
    const state = { connected: true, visible: true };
    const stop = followCounterWithoutLive(qc, { connected: () => state.connected, visible: () => state.visible });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(COUNTER_POLL_MS * 2);
    expect(calls).toBe(1);
    state.connected = false;
    await vi.advanceTimersByTimeAsync(COUNTER_POLL_MS * 2);
    expect(calls).toBe(3);
    state.visible = false;
    await vi.advanceTimersByTimeAsync(COUNTER_POLL_MS * 2);
    expect(calls).toBe(3);
    stop();
    state.visible = true;
    await vi.advanceTimersByTimeAsync(COUNTER_POLL_MS * 2);
    expect(calls).toBe(3);
    off();
  });
});
