import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { meKey } from "@/lib/session";
import { queryClientOptions } from "@/query";
import { rbacVariants as rbac, variants as social } from "./variants";
import { chatsKey, profilesKey, unreadKey } from "./api";
import { ChatButton } from "./chat";

// Signed in with a password (a subject without such an identity is a guest: no chats).
const subject = { id: "s1", admin: false, roles: [], identities: [{ id: "i1", provider: "email_and_password", email: "a@b.test", account: null, verifiedAt: null, pendingEmail: null }] };

function mount(node: React.ReactNode, signedIn: boolean, seed: (qc: QueryClient) => void = () => {}) {
  const qc = new QueryClient(queryClientOptions);
  qc.setQueryData(meKey, signedIn ? subject : null);
  seed(qc);
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={["/en/social/chats"]}>
        <Routes>
          <Route path="/:lang/*" element={node} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const widget = (variant: string) => ({ id: "w", _entity: "test.widget", variant, title: null });

describe("social and rbac chat variants", () => {
  it("ask a visitor to sign in", () => {
    const ChatList = social["chat-list-default"]!;
    const Profiles = rbac["subject-list-social-module-profile-default"]!;
    const Overview = rbac["subject-overview-social-module-profile-overview-default"]!;
    mount(
      <>
        <ChatList data={widget("chat-list-default")} lang="en" url="/x" />
        <Profiles data={widget("subject-list-social-module-profile-default")} lang="en" url="/x" />
        <Overview data={widget("subject-overview-social-module-profile-overview-default")} lang="en" url="/x" />
        <ChatButton />
      </>,
      false,
    );
    expect(screen.getAllByTestId("chat-sign-in")).toHaveLength(3);
    expect(screen.queryByTestId("chat-button")).toBeNull();
  });

  it("offer a profile to a subject without one", () => {
    const ChatList = social["chat-list-default"]!;
    mount(<ChatList data={widget("chat-list-default")} lang="en" url="/x" />, true, (qc) => qc.setQueryData(profilesKey("s1"), []));
    expect(screen.getByRole("heading", { name: "Choose the name you chat under" })).toBeInTheDocument();
  });

  it("show the profiles, the chat list and the 99+ badge", () => {
    const Profiles = rbac["subject-list-social-module-profile-default"]!;
    const ChatList = social["chat-list-default"]!;
    mount(
      <>
        <ChatButton />
        <Profiles data={widget("subject-list-social-module-profile-default")} lang="en" url="/x" />
        <ChatList data={widget("chat-list-default")} lang="en" url="/x" />
      </>,
      true,
      (qc) => {
        qc.setQueryData(profilesKey("s1"), [{ id: "p1", slug: "green-owl", adminTitle: "Owl", title: { en: "Owl" } }]);
        qc.setQueryData(unreadKey("s1"), { unread: 100, capped: true, chats: 3, profileIds: ["p1"] });
        qc.setQueryData(chatsKey("s1", "p1"), [
          { id: "c1", title: null, createdAt: "2026-01-01T00:00:00Z", members: [{ id: "p1", title: { en: "Owl" }, lastRead: 0 }, { id: "p2", title: { en: "Fox" }, lastRead: 0 }], lastMessage: null, unread: 4, lastRead: 0 },
        ]);
      },
    );
    expect(screen.getByTestId("chat-badge")).toHaveTextContent("99+");
    expect(screen.getByTestId("my-profiles")).toHaveTextContent("Owl");
    expect(screen.getByRole("link", { name: "View profile" })).toHaveAttribute("href", "/en/social/profiles/green-owl");
    expect(screen.getByTestId("chat-item")).toHaveTextContent("Fox");
    expect(screen.getByTestId("chat-unread")).toHaveTextContent("4");
  });
});
