import { act, render, screen } from "@testing-library/react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { useState } from "react";
import { lazyPart } from "./lazy-part";
import { beginHydration, hydrationDone } from "./client-only";

let renders = 0;
function Hello({ name }: { name: string }) {
  renders++;
  const [n, setN] = useState(0);
  return (
    <button type="button" onClick={() => setN(n + 1)}>
      Hello {name} {n}
    </button>
  );
}
const loaded = { default: Hello };

describe("lazyPart", () => {
  it("renders at once with the module (the server's case)", () => {
    const Part = lazyPart(() => Promise.resolve(loaded), loaded);
    render(<Part name="server" />);
    expect(screen.getByRole("button")).toHaveTextContent("Hello server 0");
  });

  it("loads in a boundary of its own after hydration, and at once once preloaded", async () => {
    let loads = 0;
    const Part = lazyPart(() => {
      loads++;
      return Promise.resolve(loaded);
    });
    render(<Part name="later" />);
    expect(screen.queryByRole("button")).toBeNull();
    expect(await screen.findByRole("button")).toHaveTextContent("Hello later 0");
    await Part.preload();
    render(<Part name="again" />);
    expect(screen.getByRole("button", { name: /again/ })).toBeInTheDocument();
    expect(loads).toBe(1);
  });

  it("hydrates the server's HTML without a mismatch, preloaded or still loading", async () => {
    const Server = lazyPart(() => Promise.resolve(loaded), loaded);
    const html = renderToString(
      <main>
        <Server name="x" />
      </main>,
    );
    expect(html).not.toContain("<!--$-->");
    for (const preload of [true, false]) {
      const Part = lazyPart(() => Promise.resolve(loaded));
      if (preload) await Part.preload();
      const container = document.createElement("div");
      container.innerHTML = html;
      document.body.append(container);
      const errors: unknown[] = [];
      renders = 0;
      beginHydration();
      try {
        await act(async () => {
          hydrateRoot(
            container,
            <main>
              <Part name="x" />
            </main>,
            { onRecoverableError: (e) => errors.push(e) },
          );
        });
        await act(() => new Promise((r) => setTimeout(r, 10)));
      } finally {
        // As the app's `MarkHydrated` does (the next tests run live).
        hydrationDone();
      }
      expect(errors).toEqual([]);
      // Rendered once: the end of hydration does not render a part (and all it holds) again.
      expect(renders).toBe(1);
      const button = container.querySelector("button")!;
      await act(async () => button.click());
      expect(button).toHaveTextContent("Hello x 1");
      container.remove();
    }
  });
});
