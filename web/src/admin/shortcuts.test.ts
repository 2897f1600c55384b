import { isTyping, runShortcut, type Shortcut, shortcutOf } from "./shortcuts";

const key = (k: string, extra: Partial<KeyboardEvent> = {}, target: EventTarget | null = document.body) =>
  shortcutOf({ key: k, code: "", ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target, ...extra });

describe("keyboard shortcuts", () => {
  it("knows /, n, ? and Ctrl/Cmd+S, also by key position (a Russian layout)", () => {
    expect(key("/")).toBe("search");
    expect(key("n")).toBe("new");
    expect(key("?", { shiftKey: true })).toBe("help");
    expect(key("s", { ctrlKey: true })).toBe("save");
    expect(key("S", { metaKey: true, shiftKey: true })).toBe("save");
    expect(key("ы", { code: "KeyS", ctrlKey: true })).toBe("save");
    expect(key("т", { code: "KeyN" })).toBe("new");
    expect(key(".", { code: "Slash" })).toBe("search");
    expect(key(",", { code: "Slash", shiftKey: true })).toBe("help");
  });

  it("ignores other keys and letters with modifiers", () => {
    expect(key("x")).toBeNull();
    expect(key("N", { shiftKey: true })).toBeNull();
    expect(key("n", { ctrlKey: true })).toBeNull();
    expect(key("/", { altKey: true })).toBeNull();
    expect(key("s")).toBeNull();
  });

  it("does not fire letters while typing in a field, except Ctrl+S", () => {
    const input = document.createElement("input");
    const area = document.createElement("textarea");
    const editor = document.createElement("div");
    editor.setAttribute("contenteditable", "true");
    const inner = document.createElement("p");
    editor.append(inner);
    const box = Object.assign(document.createElement("input"), { type: "checkbox" });
    for (const t of [input, area, inner]) {
      expect(key("/", {}, t)).toBeNull();
      expect(key("n", {}, t)).toBeNull();
      expect(key("?", {}, t)).toBeNull();
      expect(key("s", { ctrlKey: true }, t)).toBe("save");
    }
    expect(isTyping(editor)).toBe(true);
    expect(isTyping(box)).toBe(false);
    expect(key("n", {}, box)).toBe("new");
  });
});

describe("what a shortcut does on the page", () => {
  afterEach(() => {
    document.body.innerHTML = "";
  });

  function page() {
    document.body.innerHTML = `
      <main>
        <div data-entity="blog.article">
          <input type="search" data-shortcut="search" aria-label="search" />
          <button data-shortcut="new">Add new</button>
        </div>
      </main>`;
    const newButton = document.querySelector<HTMLButtonElement>("[data-shortcut=new]")!;
    const clicked = vi.fn();
    newButton.addEventListener("click", clicked);
    return { search: document.querySelector<HTMLInputElement>("[data-shortcut=search]")!, clicked };
  }

  it("focuses the table's search and clicks New", () => {
    const { search, clicked } = page();
    expect(runShortcut("search")).toBe(true);
    expect(document.activeElement).toBe(search);
    expect(runShortcut("new")).toBe(true);
    expect(clicked).toHaveBeenCalledOnce();
  });

  it("does nothing to the table behind an open dialog, and saves the topmost dialog's form", () => {
    const { clicked } = page();
    const submitted: string[] = [];
    for (const name of ["under", "top"]) {
      const d = document.createElement("div");
      d.setAttribute("role", "dialog");
      d.innerHTML = `<form aria-label="${name}"><input name="x" /><button type="submit">Save</button></form>`;
      d.querySelector("form")!.addEventListener("submit", (e) => {
        e.preventDefault();
        submitted.push(name);
      });
      document.body.append(d);
    }
    expect(runShortcut("new")).toBe(false);
    expect(runShortcut("search")).toBe(false);
    expect(clicked).not.toHaveBeenCalled();
    expect(runShortcut("save")).toBe(true);
    expect(submitted).toEqual(["top"]);
  });

  it("skips the controls of a hidden tab", () => {
    document.body.innerHTML = `
      <main>
        <div role="tabpanel" data-state="inactive" hidden><input type="search" data-shortcut="search" id="hidden" /></div>
        <div role="tabpanel" data-state="active"><input type="search" data-shortcut="search" id="shown" /></div>
      </main>`;
    expect(runShortcut("search")).toBe(true);
    expect(document.activeElement?.id).toBe("shown");
  });

  it("says when there is nothing to act on", () => {
    document.body.innerHTML = "<main><p>dashboard</p></main>";
    for (const s of ["search", "new", "save"] as Shortcut[]) expect(runShortcut(s)).toBe(false);
  });
});
