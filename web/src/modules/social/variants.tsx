import { tr } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { Variant } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import type { rbacAdded } from "./added";
import { ChatsApp } from "./chat";
import { SubjectProfileOverview, SubjectProfiles } from "./profiles";
import { Block, Body, Cover } from "@/site/blocks";

function ProfileOverview({ data, lang }: VariantProps) {
  const p = data._record;
  if (!p) return null;
  return (
    <Block data={{ ...data, title: p.title }} lang={lang}>
      <Cover data={p} className="h-32 w-32 rounded-full" />
      {tr(p.subtitle, lang) ? <p className="mt-2 text-lg text-neutral-600">{tr(p.subtitle, lang)}</p> : null}
      <Body data={p} lang={lang} />
    </Block>
  );
}

/** The signed-in visitor's chats (a sign-in prompt otherwise). */
function ChatList({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <ChatsApp heading={false} />
    </Block>
  );
}

function Default({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <Body data={data} lang={lang} />
    </Block>
  );
}

/** Every declared variant of social widgets. */
export const variants = {
  default: Default,
  "profile-overview-default": ProfileOverview,
  "chat-list-default": ChatList,
} satisfies VariantsOf<"social">;

/** The variants social adds to rbac's account widget (declared by social on the server). */
export const rbacVariants = {
  "subject-list-social-module-profile-default": SubjectProfiles,
  "subject-overview-social-module-profile-overview-default": SubjectProfileOverview,
} satisfies Record<(typeof rbacAdded)[number], Variant>;
