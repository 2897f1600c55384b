import { createEvent, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { DropZone } from "./drop-zone";

const png = (name = "a.png") => new File(["x"], name, { type: "image/png" });

function zone(props: Partial<Parameters<typeof DropZone>[0]> = {}) {
  const got: File[][] = [];
  render(<DropZone label="File" choose="Choose file" hint="Drag a file here, or" dropping="Drop to upload" testId="zone" onFiles={(f) => got.push(f)} {...props} />);
  return { got, el: screen.getByTestId("zone") };
}

/** A drag event carrying files, as the browser sends it. */
function drag(type: "dragEnter" | "dragOver" | "dragLeave" | "drop", el: HTMLElement, files: File[] = []) {
  const event = createEvent[type](el);
  Object.defineProperty(event, "dataTransfer", { value: { files, types: ["Files"], dropEffect: "none" } });
  fireEvent(el, event);
  return event;
}

describe("the drop zone", () => {
  it("takes dropped files and shows when files are over it", () => {
    const { got, el } = zone({ multiple: true });
    const over = drag("dragOver", el);
    // Without preventDefault on dragover the browser would open the file instead of dropping it.
    expect(over.defaultPrevented).toBe(true);
    expect(el).toHaveAttribute("data-over", "true");
    expect(el).toHaveTextContent("Drop to upload");
    const dropped = drag("drop", el, [png("a.png"), png("b.png")]);
    expect(dropped.defaultPrevented).toBe(true);
    expect(got.map((fs) => fs.map((f) => f.name))).toEqual([["a.png", "b.png"]]);
    expect(el).not.toHaveAttribute("data-over");
    expect(el).toHaveTextContent("Drag a file here, or");
  });

  it("keeps one file unless it takes many", () => {
    const { got, el } = zone();
    drag("drop", el, [png("a.png"), png("b.png")]);
    expect(got.map((fs) => fs.map((f) => f.name))).toEqual([["a.png"]]);
  });

  it("opens the picker from a keyboard-reachable button; the input stays out of the tab order", async () => {
    const { got } = zone({ accept: "image/png" });
    const input = screen.getByLabelText<HTMLInputElement>("File");
    expect(input).toHaveAttribute("tabindex", "-1");
    expect(input).toHaveAttribute("accept", "image/png");
    const opened = vi.spyOn(input, "click");
    await userEvent.tab();
    expect(screen.getByRole("button", { name: "Choose file" })).toHaveFocus();
    await userEvent.keyboard("{Enter}");
    expect(opened).toHaveBeenCalledTimes(1);
    await userEvent.upload(input, png("picked.png"));
    expect(got.map((fs) => fs.map((f) => f.name))).toEqual([["picked.png"]]);
    // Cleared, so choosing the same file again is a change too.
    expect(input.value).toBe("");
  });

  it("ignores drops and the button when disabled", () => {
    const { got, el } = zone({ disabled: true });
    drag("dragOver", el);
    expect(el).not.toHaveAttribute("data-over");
    drag("drop", el, [png()]);
    expect(got).toEqual([]);
    expect(screen.getByRole("button", { name: "Choose file" })).toBeDisabled();
  });
});
