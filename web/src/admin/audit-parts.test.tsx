import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Meta } from "@/api/meta";
import { DiffView } from "./audit-parts";

const meta = { languages: ["ru", "en"], modules: [], entities: [] } as unknown as Meta;

describe("an audit entry's diff", () => {
  it("shows each changed field before → after, translations per language, secrets hidden, long values cut", async () => {
    const long = "A long description. ".repeat(20);
    render(
      <DiffView
        meta={meta}
        entry={{
          entity: "blog.article",
          changes: { title: { before: { en: "Tree", ru: "Дерево" }, after: { en: "Trees", ru: "Дерево" } }, adminTitle: { before: "short", after: long } },
          redacted: ["password"],
        }}
      />,
    );
    const table = screen.getByTestId("audit-diff");
    const title = table.querySelector('tr[data-field="title"]') as HTMLElement;
    expect(title).toHaveAttribute("data-lang", "en");
    expect(within(title).getByText("Tree")).toBeInTheDocument();
    expect(within(title).getByText("Trees")).toBeInTheDocument();
    expect(table.querySelectorAll('tr[data-field="title"]')).toHaveLength(1);
    const secret = table.querySelector('tr[data-field="password"]') as HTMLElement;
    expect(secret).toHaveTextContent("changed (hidden)");
    const admin = table.querySelector('tr[data-field="adminTitle"]') as HTMLElement;
    expect(admin.textContent).not.toContain(long.trim());
    await userEvent.click(within(admin).getByRole("button", { name: "Show all" }));
    expect(admin.textContent).toContain(long.trim());
  });

  it("says when no field changed", () => {
    render(<DiffView meta={meta} entry={{ entity: "x.y", changes: {}, redacted: [] }} />);
    expect(screen.getByText("No field changed.")).toBeInTheDocument();
  });
});
