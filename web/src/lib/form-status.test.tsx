import { act, renderHook } from "@testing-library/react";
import { STATUS_RESET_MS, useFormStatus } from "./form-status";

describe("the form status machine", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("goes idle → pending → success → idle after 5 s", async () => {
    const { result } = renderHook(() => useFormStatus());
    expect(result.current.status).toBe("idle");
    let finish: (v: number) => void = () => {};
    let done: Promise<number | undefined> = Promise.resolve(undefined);
    act(() => {
      done = result.current.run(() => new Promise<number>((r) => (finish = r)));
    });
    expect(result.current.status).toBe("pending");
    await act(async () => {
      finish(7);
      expect(await done).toBe(7);
    });
    expect(result.current.status).toBe("success");
    act(() => vi.advanceTimersByTime(STATUS_RESET_MS - 1));
    expect(result.current.status).toBe("success");
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.status).toBe("idle");
  });

  it("goes pending → error → idle after 5 s, and rethrows", async () => {
    const { result } = renderHook(() => useFormStatus());
    await act(async () => {
      await expect(result.current.run(() => Promise.reject(new Error("no")))).rejects.toThrow("no");
    });
    expect(result.current.status).toBe("error");
    act(() => vi.advanceTimersByTime(STATUS_RESET_MS));
    expect(result.current.status).toBe("idle");
  });

  it("a new submit cancels the pending reset", async () => {
    const { result } = renderHook(() => useFormStatus());
    await act(async () => {
      await result.current.run(() => Promise.resolve(1));
    });
    act(() => vi.advanceTimersByTime(4000));
    let finish: () => void = () => {};
    act(() => {
      void result.current.run(() => new Promise<void>((r) => (finish = r)));
    });
    act(() => vi.advanceTimersByTime(2000));
    expect(result.current.status).toBe("pending");
    await act(async () => finish());
    expect(result.current.status).toBe("success");
  });
});
