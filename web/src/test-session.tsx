// Shared by the unit tests of what asks who is signed in (the account screens, the header, the
// cart): a query client (seeded with the signed-in subject) and a router on a language-prefixed
// URL around what is rendered.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router";
import { queryClientOptions } from "@/query";
import { type Identity, meKey, type Subject } from "@/lib/session";

export const emailIdentity = (over: Partial<Identity> = {}): Identity => ({
  id: "i1",
  provider: "email_and_password",
  email: "a@b.test",
  account: null,
  verifiedAt: null,
  pendingEmail: null,
  ...over,
});

export const subjectWith = (...identities: Identity[]): Subject => ({
  id: "s1",
  admin: false,
  roles: [],
  identities,
  secondFactor: { enabled: false, required: false, satisfied: true },
});

/** Renders `node` at `url` (`undefined` subject: the session is not known yet). */
export function mount(node: ReactNode, { me, url = "/en/x" }: { me?: Subject | null; url?: string } = {}) {
  const qc = new QueryClient(queryClientOptions);
  if (me !== undefined) qc.setQueryData(meKey, me);
  const view = render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/:lang/*" element={node} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { qc, ...view };
}
