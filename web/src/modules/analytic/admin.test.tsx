import { reply, stubFetch } from "@/test-fetch";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { queryClientOptions } from "@/query";
import AnalyticsScreen from "./admin";
import type { Dashboard } from "./dashboard";

function dashboard(days: number): Dashboard {
  return {
    days,
    since: "2026-03-01",
    perDay: Array.from({ length: days }, (_, i) => ({ day: `d${i}`, views: i, visitors: Math.floor(i / 2) })),
    views: 1234,
    visitors: 321,
    topPages: [
      { key: "/ru", count: 900 },
      { key: "/en/blog", count: 12 },
    ],
    topReferrers: [],
    devices: [{ key: "desktop", count: 1234 }],
    languages: [{ key: "ru", count: 1000 }],
    events: [{ key: "donation-started", count: 40 }],
    funnel: { views: 1234, started: 40, paid: 10 },
  };
}

describe("the analytics screen", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the figures of the chosen period and switches between 7, 30 and 90 days", async () => {
    const asked = stubFetch(({ url }) => reply(200, { data: dashboard(Number(new URL(url, "http://x").searchParams.get("days"))) }));
    render(
      <QueryClientProvider client={new QueryClient(queryClientOptions)}>
        <AnalyticsScreen lang="en" />
      </QueryClientProvider>,
    );
    expect(await screen.findByTestId("analytics-views")).toHaveTextContent("1,234");
    expect(screen.getByTestId("analytics-visitors")).toHaveTextContent("321");
    expect(screen.getByRole("img", { name: "Views and visitors per day, last 30 days" })).toBeInTheDocument();
    expect(within(screen.getByTestId("top-pages")).getByText("/ru")).toBeInTheDocument();
    expect(screen.getByTestId("top-referrers")).toHaveTextContent("Nothing counted yet.");
    expect(screen.getByTestId("funnel-started")).toHaveTextContent("Donations started40");
    expect(screen.getByTestId("funnel-started")).toHaveTextContent("3.24% of the previous step");
    expect(screen.getByTestId("funnel-paid")).toHaveTextContent("25% of the previous step");
    expect(screen.getByTestId("funnel-overall")).toHaveTextContent("0.81% of views ended in a paid order");
    expect(screen.getByRole("button", { name: "30 days" })).toHaveAttribute("aria-pressed", "true");
    await userEvent.click(screen.getByRole("button", { name: "7 days" }));
    await waitFor(() => expect(screen.getByTestId("analytics")).toHaveAttribute("data-days", "7"));
    expect(screen.getByTestId("per-day").querySelectorAll("tbody tr")).toHaveLength(7);
    await userEvent.click(screen.getByRole("button", { name: "90 days" }));
    await waitFor(() => expect(screen.getByTestId("analytics")).toHaveAttribute("data-days", "90"));
    expect(asked.map((a) => a.url)).toEqual(["/api/analytic/dashboard?days=30", "/api/analytic/dashboard?days=7", "/api/analytic/dashboard?days=90"]);
  });
});
