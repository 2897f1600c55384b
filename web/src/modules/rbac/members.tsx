//! rbac's subject list and overview for visitors. Accounts (subjects) are private: the server lists
//! them to admins only and page bundles never carry one, so a visitor's "members" are the public
//! social profiles — a name and a monogram, linking to the profile page; never an email, an id or
//! an account slug. The account page (`/rbac/subjects/{slug}`) says plainly that accounts are
//! private and points to the members list; nothing links to it (docs/widgets.md).
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api } from "@/api/client";
import type { components } from "@/api/schema";
import { tr } from "@/site/content";
import { siteLink } from "@/site/link";
import type { VariantProps } from "@/site/registry";
import { Block } from "@/site/blocks";
import { useWidgetsT } from "@/site/widgets-i18n";

type Profile = components["schemas"]["SocialProfile"];

/** Profiles shown on the members list. */
const SHOWN = 48;

/** What a visitor sees of a profile: its name in `lang` (else its admin title), its initial, and
 * its page; null for a profile with no name to show or an assistant's (not a member). */
export function memberCard(p: Pick<Profile, "title" | "adminTitle" | "slug" | "variant">, lang: string): { name: string; initial: string; href: string } | null {
  if (p.variant !== "default" || !p.slug) return null;
  const name = (tr(p.title, lang) || p.adminTitle || "").trim();
  if (!name) return null;
  return { name, initial: [...name][0]?.toUpperCase() ?? "", href: siteLink(`/social/profiles/${p.slug}`, lang) };
}

/** rbac `subject-list-default`: the members with a public profile, newest first. */
export function SubjectList({ data, lang }: VariantProps) {
  const t = useWidgetsT();
  const q = useQuery({
    queryKey: ["social-directory", "members"],
    queryFn: () =>
      api.get("/api/social/profiles", {
        params: { query: { limit: SHOWN, filters: JSON.stringify({ and: [{ column: "variant", method: "eq", value: "default" }] }), orderBy: JSON.stringify([{ column: "createdAt", method: "desc" }]) } },
      }),
    staleTime: 60_000,
  });
  const cards = (q.data ?? []).map((p) => [p.id, memberCard(p, lang)] as const).filter((c): c is readonly [string, NonNullable<ReturnType<typeof memberCard>>] => c[1] !== null);
  return (
    <Block data={data} lang={lang}>
      <p className="-mt-3 mb-6 text-lg text-neutral-600">{t("widgets.members.intro")}</p>
      {q.isPending ? (
        <output className="block text-neutral-600">{t("widgets.members.loading")}</output>
      ) : cards.length ? (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="members">
          {cards.map(([id, c]) => (
            <li key={id} className="group relative flex items-center gap-4 rounded-2xl border border-neutral-200 bg-white p-4 focus-within:ring-2 focus-within:ring-emerald-700 hover:shadow-md">
              <span aria-hidden className="flex size-12 shrink-0 items-center justify-center rounded-full bg-emerald-100 text-lg font-semibold text-emerald-900">
                {c.initial}
              </span>
              <span className="flex min-w-0 flex-col">
                <span className="truncate font-semibold">{c.name}</span>
                <Link to={c.href} className="text-sm text-emerald-800 outline-none after:absolute after:inset-0 group-hover:underline" aria-label={`${t("widgets.members.view")}: ${c.name}`}>
                  {t("widgets.members.view")}
                </Link>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-neutral-600">{q.isError ? t("site.error") : t("widgets.members.empty")}</p>
      )}
    </Block>
  );
}

/** rbac `subject-overview-default`: an account page, which visitors may not see — said plainly,
 * with the way to the members' public profiles. */
export function SubjectOverview({ data, lang }: VariantProps) {
  const t = useWidgetsT();
  return (
    <Block data={{ ...data, title: null }} lang={lang}>
      <div className="mx-auto max-w-2xl rounded-3xl border border-neutral-200 p-8 text-center" data-testid="subject-private">
        <h1 className="text-2xl font-bold">{t("widgets.members.private")}</h1>
        <p className="mt-3 text-neutral-700">{t("widgets.members.privateText")}</p>
        <Link to={siteLink("/rbac/subjects", lang)} className="mt-6 inline-flex rounded-full bg-emerald-800 px-6 py-2.5 font-semibold text-white hover:bg-emerald-700">
          {t("widgets.members.all")}
        </Link>
      </div>
    </Block>
  );
}
