import { answers, excerpt, inputLabel, payloadOf, requestsCsv } from "./admin";

const name = { id: "i1", slug: "contact-name", type: "text", label: { en: "Your name", ru: "Ваше имя" } };
const email = { id: "i2", slug: "contact-email", type: "email", label: null, title: { en: "Email", ru: "Почта" } };
const message = { id: "i3", slug: "contact-message", type: "textarea" };

describe("the form submissions inbox", () => {
  it("reads a submission's payload, tolerating what is missing", () => {
    expect(payloadOf({ id: "r", payload: { formId: "f", values: { a: 1 }, subjectId: "s" } })).toEqual({ formId: "f", values: { a: 1 }, subjectId: "s" });
    expect(payloadOf({ id: "r", payload: null })).toEqual({ formId: null, values: {}, subjectId: null });
  });

  it("names a field by its label, its title, else its short name made readable", () => {
    expect(inputLabel(name, "ru")).toBe("Ваше имя");
    expect(inputLabel(email, "ru")).toBe("Почта");
    expect(inputLabel(message, "en")).toBe("Contact message");
  });

  it("shows the longest text answer, not the address, cut to a line", () => {
    expect(excerpt({ "contact-name": "Ann", "contact-email": "ann@example.com", "contact-message": "We would like to plant   a grove\nnear the school" })).toBe("We would like to plant a grove near the school");
    expect(excerpt({ m: "x".repeat(100) }, 10)).toBe(`${"x".repeat(9)}…`);
    expect(excerpt({})).toBe("");
  });

  it("lists answers in the form's order, answers of removed fields last", () => {
    const got = answers([name, email, message], { "contact-message": "Hi", old: "kept", "contact-name": "Ann" });
    expect(got.map((a) => a.key)).toEqual(["contact-name", "contact-message", "old"]);
    expect(got[2]!.input).toBeNull();
  });

  it("exports CSV with the fields' labels, statuses in words, and formulas defused", () => {
    const rows = [
      { id: "r1", createdAt: "2026-11-29T10:00:00Z", email: "ann@example.com", status: "new", payload: { formId: "f1", values: { "contact-name": "Ann, \"A\"", "contact-message": "=HYPERLINK(1)" } } },
      { id: "r2", createdAt: "2026-11-28T10:00:00Z", email: null, status: "done", payload: { formId: "gone", values: { "contact-name": "Bob" } } },
    ];
    const csv = requestsCsv(rows, new Map([["f1", "Contact us"]]), new Map([["contact-name", "Your name"], ["contact-message", "Message"]]), { received: "Received", form: "Form", email: "Email", status: "Status" }, (s) => ({ new: "New", done: "Done" })[s] ?? s);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("Received,Form,Email,Status,Your name,Message");
    expect(lines[1]).toBe('2026-11-29T10:00:00Z,Contact us,ann@example.com,New,"Ann, ""A""",\'=HYPERLINK(1)');
    expect(lines[2]).toBe("2026-11-28T10:00:00Z,,,Done,Bob,");
  });
});
