import { focusManager, onlineManager, QueryClient, QueryClientProvider, type QueryClientConfig, useQuery } from "@tanstack/react-query";
import { act, render, screen } from "@testing-library/react";
import { queryClientOptions } from "./query";

function Reader({ fetcher }: { fetcher: () => Promise<string> }) {
  const q = useQuery({ queryKey: ["x"], queryFn: fetcher });
  return <p>{q.data ?? "…"}</p>;
}

/** Mounts a reader, then the window loses and regains focus and the network drops and returns. */
async function fetchesAfterFocusAndReconnect(config: QueryClientConfig): Promise<number> {
  const fetcher = vi.fn(async () => "value");
  const view = render(
    <QueryClientProvider client={new QueryClient(config)}>
      <Reader fetcher={fetcher} />
    </QueryClientProvider>,
  );
  await screen.findByText("value");
  await act(async () => {
    focusManager.setFocused(false);
    focusManager.setFocused(true);
    onlineManager.setOnline(false);
    onlineManager.setOnline(true);
    await new Promise((r) => setTimeout(r, 20));
  });
  view.unmount();
  focusManager.setFocused(undefined);
  return fetcher.mock.calls.length;
}

const queries = queryClientOptions.defaultOptions?.queries ?? {};

describe("the query cache (SPEC §9)", () => {
  it("does not refetch on window focus or reconnect, even for stale data", async () => {
    expect(await fetchesAfterFocusAndReconnect({ defaultOptions: { queries: { ...queries, staleTime: 0 } } })).toBe(1);
    // The same probe sees the refetch when the flags are on, so it can fail.
    expect(
      await fetchesAfterFocusAndReconnect({ defaultOptions: { queries: { ...queries, staleTime: 0, refetchOnWindowFocus: true } } }),
    ).toBeGreaterThan(1);
  });

  it("a second reader within the stale time reuses the data", async () => {
    const fetcher = vi.fn(async () => "value");
    const client = new QueryClient(queryClientOptions);
    const tree = (n: number) => (
      <QueryClientProvider client={client}>
        {Array.from({ length: n }, (_, i) => (
          <Reader key={i} fetcher={fetcher} />
        ))}
      </QueryClientProvider>
    );
    const { rerender } = render(tree(1));
    await screen.findByText("value");
    rerender(tree(2));
    await screen.findAllByText("value");
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(queries.staleTime).toBe(60_000);
  });
});
