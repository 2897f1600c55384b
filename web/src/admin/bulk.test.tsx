import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { ApiError } from "@/api/http";
import type { EntityMeta } from "@/api/meta";
import { reply, stubFetch } from "@/test-fetch";
import { field as f } from "@/test-meta";
import { BulkBar, deleteEach, publishEach, publishable, SelectAll, SelectRow, useSelection } from "./bulk";

const ids = ["a", "b", "c", "d"].map((x) => `0191e6a4-0000-7000-8000-00000000000${x}`);

const page: EntityMeta = {
  label: null,
  labelMany: null,
  group: null,
  rank: null,
  help: null,
  module: "host",
  name: "page",
  route: "pages",
  path: "/api/host/pages",
  kind: "model",
  table: "host_page",
  titleField: "title",
  listColumns: ["title"],
  variants: ["default"],
  ops: { create: true, update: true, delete: true, findOrCreate: true, bulk: true },
  referencedBy: [],
  fields: [f("id", "uuid", { serverOwned: true }), f("title", "text"), f("status", "enum", { required: true, values: ["draft", "published", "scheduled"] })],
};

describe("bulk actions", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("publishes only entities with a status that can be published", () => {
    expect(publishable(page)).toBe(true);
    expect(publishable({ ...page, fields: page.fields.map((x) => (x.name === "status" ? { ...x, values: ["new", "done"] } : x)) })).toBe(false);
    expect(publishable({ ...page, ops: { ...page.ops, bulk: false } })).toBe(false);
  });

  it("publishes through PATCH /bulk and reports the record the server refused, by id", async () => {
    const sent = stubFetch((s) => {
      const items = s.body as { id: string }[];
      const n = items.findIndex((i) => i.id === ids[1]);
      if (n >= 0) return reply(422, { status: 422, code: "invalid", error: "invalid", fields: { [`[${n}].status`]: ["cannot be published without a title"] } });
      return reply(200, { data: [] });
    });
    const r = await publishEach(page, ids);
    expect(r.done).toEqual([ids[0], ids[2], ids[3]]);
    expect(r.failed).toEqual([{ id: ids[1], message: "status cannot be published without a title" }]);
    expect(sent[0]).toMatchObject({ method: "PATCH", url: "/api/host/pages/bulk", body: ids.map((id) => ({ id, data: { status: "published" } })) });
    expect(sent).toHaveLength(2);
  });

  it("deletes each id and keeps the failures with their messages", async () => {
    const progress: number[] = [];
    const r = await deleteEach(
      async (id) => {
        if (id === ids[2]) throw new ApiError(409, "conflict", "still referenced");
      },
      ids,
      (n) => progress.push(n),
      2,
    );
    expect(r.done.sort()).toEqual([ids[0], ids[1], ids[3]].sort());
    expect(r.failed).toEqual([{ id: ids[2], message: "still referenced" }]);
    expect(progress.sort()).toEqual([1, 2, 3, 4]);
  });

  it("selects rows, all on a page, asks before deleting and says which records failed", async () => {
    const sent = stubFetch((s) => (s.url.endsWith(ids[1]!) ? reply(409, { status: 409, code: "conflict", error: "still referenced" }) : reply(200, { data: {} })));
    function Table() {
      const selection = useSelection();
      const [shown] = useState(ids.slice(0, 3));
      return (
        <>
          <BulkBar entity={page} selection={selection} titleOf={(id) => `Page ${id.slice(-1)}`} />
          <SelectAll ids={shown} selection={selection} />
          {shown.map((id) => (
            <SelectRow key={id} id={id} title={`Page ${id.slice(-1)}`} selection={selection} />
          ))}
        </>
      );
    }
    render(
      <QueryClientProvider client={new QueryClient()}>
        <Table />
      </QueryClientProvider>,
    );
    await userEvent.click(screen.getByRole("checkbox", { name: "Select Page a" }));
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("1 selected");
    expect(screen.getByRole("checkbox", { name: "Select all on this page" })).toHaveProperty("indeterminate", true);
    await userEvent.click(screen.getByRole("checkbox", { name: "Select all on this page" }));
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("3 selected");
    await userEvent.click(within(screen.getByRole("region", { name: "Selected records" })).getByRole("button", { name: "Delete" }));
    const confirm = screen.getByRole("alertdialog", { name: "Delete 3 records?" });
    expect(sent).toEqual([]);
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await screen.findByTestId("bulk-failures")).toHaveTextContent("1 record failed:Page b: still referenced");
    expect(sent.map((s) => `${s.method} ${s.url}`).sort()).toEqual(ids.slice(0, 3).map((id) => `DELETE /api/host/pages/${id}`));
    // The failed record stays selected; the deleted ones do not.
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("1 selected");
    expect(screen.getByRole("checkbox", { name: "Select Page b" })).toBeChecked();
  });
});
