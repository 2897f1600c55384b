import { focusTarget, goToAnchor } from "./focus";

describe("focusTarget and goToAnchor", () => {
  // jsdom lays nothing out: scrolling is recorded, not done.
  const scrolled = vi.fn();
  beforeEach(() => {
    Element.prototype.scrollIntoView = scrolled;
  });
  afterEach(() => {
    document.body.replaceChildren();
    scrolled.mockClear();
  });

  it("makes a section focusable (tabindex -1) and focuses it", () => {
    document.body.innerHTML = `<a href="#donate">Plant a tree</a><section id="donate"><button>Pay</button></section>`;
    const section = document.getElementById("donate") as HTMLElement;
    expect(goToAnchor("donate")).toBe(true);
    expect(scrolled).toHaveBeenCalledOnce();
    expect(section).toHaveAttribute("tabindex", "-1");
    expect(section).toHaveAttribute("data-focus-target");
    expect(document.activeElement).toBe(section);
  });

  it("leaves a control as it is and focuses it", () => {
    document.body.innerHTML = `<input id="email" />`;
    const input = document.getElementById("email") as HTMLElement;
    focusTarget(input);
    expect(input).not.toHaveAttribute("tabindex");
    expect(document.activeElement).toBe(input);
  });

  it("moves the focus from the link that was followed", () => {
    document.body.innerHTML = `<a id="link" href="#faq">FAQ</a><section id="faq"></section>`;
    (document.getElementById("link") as HTMLElement).focus();
    expect(goToAnchor("faq")).toBe(true);
    expect(document.activeElement).toBe(document.getElementById("faq"));
  });

  it("leaves the focus on a field the page put it on (a tier's preset quantity)", () => {
    document.body.innerHTML = `<section id="donate"></section><section><input id="quantity" /></section>`;
    const quantity = document.getElementById("quantity") as HTMLElement;
    quantity.focus();
    expect(goToAnchor("donate")).toBe(false);
    expect(document.activeElement).toBe(quantity);
    expect(scrolled).not.toHaveBeenCalled();
  });

  it("says so when no element has the id", () => {
    document.body.innerHTML = `<main></main>`;
    expect(goToAnchor("nowhere")).toBe(false);
    expect(document.activeElement).toBe(document.body);
  });
});
