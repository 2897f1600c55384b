import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { COUNTER_KEY, COUNTER_POLL_MS, pollCounter } from "./counter";

describe("the campaign counter on an open page", () => {
  afterEach(() => vi.useRealTimers());

  it("asks again every few seconds once polled, and not at all without", async () => {
    vi.useFakeTimers();
    const count = async (poll: boolean) => {
      const qc = new QueryClient();
      if (poll) pollCounter(qc);
      let calls = 0;
      const observer = new QueryObserver(qc, { queryKey: COUNTER_KEY, queryFn: async () => ++calls });
      const off = observer.subscribe(() => undefined);
      await vi.advanceTimersByTimeAsync(COUNTER_POLL_MS * 3 + 100);
      off();
      qc.clear();
      return calls;
    };
    expect(await count(false)).toBe(1);
    expect(await count(true)).toBe(4);
  });
});
