import { render, screen } from "@testing-library/react";
import { clampQuantity } from "@/modules/ecommerce/donation";
import { stepQuantity } from "@/modules/ecommerce/quantity";
import { fileUrl, filesOf, formatPrice, linked, tr, type Rec } from "./content";
import { siteLink } from "./link";
import { RichText, hasText } from "./rich-text";

const rec = (id: string, extra: Partial<Rec> = {}): Rec => ({ id, _entity: "test.record", ...extra });

describe("page bundle records", () => {
  it("picks the language, then falls back", () => {
    expect(tr({ ru: "Дерево", en: "A tree" }, "en")).toBe("A tree");
    expect(tr({ ru: "Дерево" }, "en")).toBe("Дерево");
    expect(tr(null, "en")).toBe("");
    expect(tr("plain", "ru")).toBe("plain");
  });

  it("follows relations in order and by the relation row's variant", () => {
    const w = rec("w", {
      _rel: {
        "widgets-to-buttons-arrays": [
          { ...rec("l1"), variant: "default", _to: rec("a") },
          { ...rec("l2"), variant: "additional", _to: rec("b") },
          { ...rec("l3"), _to: rec("c") },
        ],
        "widgets-to-file-storage-module-files": [{ ...rec("l4"), _to: rec("f", { file: "/files/demo/x.svg" }) }],
      },
    });
    expect(linked(w, "widgets-to-buttons-arrays").map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(linked(w, "widgets-to-buttons-arrays", "default").map((r) => r.id)).toEqual(["a", "c"]);
    expect(linked(w, "widgets-to-buttons-arrays", "additional").map((r) => r.id)).toEqual(["b"]);
    expect(linked(null, "x")).toEqual([]);
    expect(filesOf(w).map((f) => fileUrl(f))).toEqual(["/files/demo/x.svg"]);
  });

  it("formats prices with the currency symbol", () => {
    const rub = { id: "1", slug: "rub", symbol: "₽", title: "RUB", isDefault: true };
    expect(formatPrice({ amount: "199", currency: rub }, "ru")).toBe("199 ₽");
    expect(formatPrice({ amount: "199000", currency: rub }, "en")).toBe("199,000 ₽");
    expect(formatPrice({ amount: "2.50", currency: { ...rub, symbol: "$" } }, "en")).toBe("2.5 $");
  });

  it("prefixes site links with the language, except roots and other schemes", () => {
    expect(siteLink("/blog", "en")).toBe("/en/blog");
    expect(siteLink("/#faq", "ru")).toBe("/ru/#faq");
    expect(siteLink("https://t.me/x", "ru")).toBe("https://t.me/x");
    expect(siteLink("/ru", "en")).toBe("/ru");
    expect(siteLink("", "en")).toBe("/");
  });
});

describe("rich text", () => {
  it("renders a document without raw HTML and drops unsafe links", () => {
    const doc = {
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 3 }, content: [{ type: "text", text: "Title" }] },
        {
          type: "paragraph",
          content: [
            { type: "text", text: "<b>not html</b> " },
            { type: "text", text: "bold", marks: [{ type: "bold" }] },
            { type: "text", text: " evil", marks: [{ type: "link", attrs: { href: "javascript:alert(1)" } }] },
            { type: "text", text: " good", marks: [{ type: "link", attrs: { href: "/ru/blog" } }] },
          ],
        },
      ],
    };
    const { container } = render(<RichText value={doc} />);
    expect(screen.getByRole("heading", { level: 3, name: "Title" })).toBeInTheDocument();
    expect(container.querySelector("b")).toBeNull();
    expect(container.textContent).toContain("<b>not html</b>");
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    const links = [...container.querySelectorAll("a")].map((a) => a.getAttribute("href"));
    expect(links).toEqual(["/ru/blog"]);
  });

  it("treats an empty document as no text", () => {
    expect(hasText({ type: "doc", content: [{ type: "paragraph" }] })).toBe(false);
    const { container } = render(<RichText value={{ type: "doc", content: [{ type: "paragraph" }] }} />);
    expect(container.innerHTML).toBe("");
  });
});

describe("tree quantity", () => {
  it("is a whole number of at least 1, empty while typing", () => {
    expect(clampQuantity("")).toBe("");
    expect(clampQuantity("0")).toBe(1);
    expect(clampQuantity("-5")).toBe(1);
    expect(clampQuantity("3.7")).toBe(3);
    expect(clampQuantity("12")).toBe(12);
    expect(clampQuantity("99999999")).toBe(10000);
  });

  it("steps by one within 1…10 000, and '−' leaves 1 or an empty field as it is", () => {
    expect(stepQuantity(1, -1)).toBe(1);
    expect(stepQuantity("", -1)).toBe("");
    expect(stepQuantity("", 1)).toBe(1);
    expect(stepQuantity(3, -1)).toBe(2);
    expect(stepQuantity(10000, 1)).toBe(10000);
  });
});
