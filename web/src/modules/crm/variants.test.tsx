import { reply, stubFetch } from "@/test-fetch";
import { act, render, screen, waitFor } from "@testing-library/react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { beginHydration, hydrationDone } from "@/lib/client-only";
import userEvent from "@testing-library/user-event";
import type { Rec } from "@/site/content";
import { resetAnalytics } from "@/lib/analytics";
import { CrmForm, HONEYPOT } from "./variants";

const form = {
  id: "f1",
  slug: "contact",
  title: { en: "Write to us" },
  _rel: {
    "forms-to-inputs": [{ _to: { id: "in1", slug: "name", label: { en: "Name" }, isRequired: true } }, { _to: { id: "in2", slug: "email", label: { en: "Email" }, type: "email" } }],
  },
} as unknown as Rec;

describe("the CRM form", () => {
  beforeEach(() => resetAnalytics());
  afterEach(() => {
    vi.unstubAllGlobals();
    Reflect.deleteProperty(navigator, "sendBeacon");
  });

  it("has a honeypot people never see, sends it empty, and counts the submission", async () => {
    const posts = stubFetch(() => reply(201, { data: { id: "r1" } }));
    const beacons: unknown[] = [];
    Object.defineProperty(navigator, "sendBeacon", { value: (_u: string, b: string) => beacons.push(JSON.parse(b)) > 0, configurable: true, writable: true });
    render(<CrmForm form={form} lang="en" />);
    const trap = document.querySelector<HTMLInputElement>(`input[name="${HONEYPOT}"]`)!;
    expect(trap).not.toBeNull();
    expect(trap.tabIndex).toBe(-1);
    expect(trap.autocomplete).toBe("off");
    expect(trap.closest("[aria-hidden=true]")).not.toBeNull();
    // Not offered to people: no accessible textbox but the real input.
    expect(screen.getAllByRole("textbox")).toHaveLength(2);
    await userEvent.type(screen.getByLabelText(/Name/), "Vera");
    await userEvent.click(screen.getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toEqual({ method: "POST", url: "/api/crm/forms/f1/requests", body: { name: "Vera", email: "", [HONEYPOT]: "" } });
    await waitFor(() => expect(beacons).toEqual([{ type: "event", name: "form-submitted", path: "/" }]));
  });

  it("asks for required fields before sending, shows the server's field messages, and drops a message once its field is edited", async () => {
    const posts = stubFetch(() => reply(422, { status: 422, code: "invalid_input", error: "invalid input", fields: { email: ["must be an email address"] } }));
    render(<CrmForm form={form} lang="en" />);
    const name = screen.getByLabelText(/Name/);
    const email = screen.getByLabelText(/Email/);
    await userEvent.click(screen.getByRole("button", { name: "Submit" }));
    expect(await screen.findByText("Required")).toBeInTheDocument();
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(name).toHaveFocus();
    expect(posts).toHaveLength(0);
    await userEvent.type(name, "Vera");
    expect(screen.queryByText("Required")).toBeNull();
    await userEvent.type(email, "vera");
    await userEvent.click(screen.getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(await screen.findByText("Enter a valid email, like name@example.com")).toBeInTheDocument();
    expect(email).toHaveAttribute("aria-describedby", "crm-f1-email-error");
    expect(email).toHaveFocus();
    expect(name).toHaveAttribute("aria-required", "true");
    expect(email).not.toHaveAttribute("aria-required");
    // The visitor's text stays to be corrected.
    expect(name).toHaveValue("Vera");
    await userEvent.type(email, "@example.org");
    expect(screen.queryByText("Enter a valid email, like name@example.com")).toBeNull();
  });

  it("cannot be sent before the page is live (the browser would send it as a GET), and can once hydrated", async () => {
    // The server's HTML, as the engine renders it before any effect.
    beginHydration();
    const container = document.createElement("div");
    try {
      container.innerHTML = renderToString(<CrmForm form={form} lang="en" />);
      expect(container.querySelector("button[type=submit]")).toBeDisabled();
      document.body.append(container);
      const errors: unknown[] = [];
      await act(async () => {
        hydrateRoot(container, <CrmForm form={form} lang="en" />, { onRecoverableError: (e) => errors.push(e) });
      });
      expect(errors).toEqual([]);
    } finally {
      hydrationDone();
    }
    await waitFor(() => expect(container.querySelector("button[type=submit]")).toBeEnabled());
    container.remove();
  });
});
