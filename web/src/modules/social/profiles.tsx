import { useTranslation } from "@/i18n";
import { Link } from "react-router";
import { useMe } from "@/lib/session";
import { siteLink } from "@/site/link";
import type { VariantProps } from "@/site/registry";
import { Block } from "@/site/blocks";
import { type ProfileCard, profileName, useProfiles } from "./api";
import { CreateProfileForm, SignInPrompt } from "./chat";

/** Profiles one account may have (crates/modules/social/src/chats.rs `MAX_OWN_PROFILES`). */
const MAX_OWN_PROFILES = 5;

function ProfileLinks({ p, lang }: { p: ProfileCard; lang: string }) {
  const { t } = useTranslation();
  return (
    <span className="flex flex-wrap gap-4 text-sm">
      {p.slug ? (
        <Link to={siteLink(`/social/profiles/${p.slug}`, lang)} className="text-emerald-800 underline-offset-4 hover:underline">
          {t("chat.viewProfile")}
        </Link>
      ) : null}
      <Link to={siteLink(`/social/chats?profile=${p.id}`, lang)} className="text-emerald-800 underline-offset-4 hover:underline">
        {t("chat.openChats")}
      </Link>
    </span>
  );
}

/**
 * rbac `subject-list-social-module-profile-default`: the signed-in subject's social profiles (the
 * names it chats under), with a form for another one. Subjects are private, so the page bundle
 * carries no list; the subject is the one signed in.
 */
export function SubjectProfiles({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const me = useMe();
  const subject = me.data?.id;
  const profiles = useProfiles(subject);
  const own = profiles.data ?? [];
  return (
    <Block data={{ ...data, title: data.title ?? t("chat.myProfiles") }} lang={lang}>
      {me.isPending || (subject && profiles.isPending) ? <p className="text-neutral-600">{t("chat.loading")}</p> : null}
      {!me.isPending && !subject ? <SignInPrompt /> : null}
      {subject && profiles.isSuccess ? (
        <div className="grid gap-6">
          {own.length ? (
            <ul className="grid gap-4 md:grid-cols-2" data-testid="my-profiles">
              {own.map((p) => (
                <li key={p.id} className="flex flex-col gap-2 rounded-2xl border border-neutral-200 p-5">
                  <span className="text-lg font-semibold">{profileName(p, lang)}</span>
                  {p.slug ? <span className="text-sm text-neutral-600">@{p.slug}</span> : null}
                  <ProfileLinks p={p} lang={lang} />
                </li>
              ))}
            </ul>
          ) : null}
          {own.length < MAX_OWN_PROFILES ? <CreateProfileForm subject={subject} title={own.length ? t("chat.createProfile") : undefined} /> : null}
        </div>
      ) : null}
    </Block>
  );
}

/**
 * rbac `subject-overview-social-module-profile-overview-default`: the signed-in subject's
 * profile (its first), or the form to make one.
 */
export function SubjectProfileOverview({ data, lang }: VariantProps) {
  const { t } = useTranslation();
  const me = useMe();
  const subject = me.data?.id;
  const profiles = useProfiles(subject);
  const p = profiles.data?.[0];
  return (
    <Block data={data} lang={lang}>
      {me.isPending || (subject && profiles.isPending) ? <p className="text-neutral-600">{t("chat.loading")}</p> : null}
      {!me.isPending && !subject ? <SignInPrompt /> : null}
      {subject && profiles.isSuccess && !p ? <CreateProfileForm subject={subject} /> : null}
      {p ? (
        <article className="flex flex-col gap-2" data-testid="my-profile">
          <h1 className="text-3xl font-bold">{profileName(p, lang)}</h1>
          {p.slug ? <p className="text-neutral-600">@{p.slug}</p> : null}
          <ProfileLinks p={p} lang={lang} />
        </article>
      ) : null}
    </Block>
  );
}
