import type { QueryClientConfig } from "@tanstack/react-query";
import { ApiError } from "./api/http";

/** SPEC §9: stale time 60 s, no refetch on focus or reconnect; client errors are not retried. */
export const queryClientOptions: QueryClientConfig = {
  defaultOptions: {
    queries: {
      staleTime: 60_000,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
};
