import { keysEn, keysRu } from "@/modules/rbac/api-key-i18n";
import { aiEn, aiRu } from "@/modules/social/ai-i18n";
import { emailEn, emailRu } from "@/modules/rbac/email-i18n";
import { securityEn, securityRu } from "@/modules/rbac/security-i18n";
import { hooksEn, hooksRu } from "@/modules/webhook/i18n";
import { catalogueProblems, missingPluralForms, type Tree, untranslated } from "@/i18n/catalogue-checks";
import type { Catalogue } from "@/lib/translate";
import { editorEn, editorRu } from "./editor-i18n";
import { toolsEn, toolsRu } from "./i18n";
import { recordsEn, recordsRu } from "./records-i18n";
import { trustEn, trustRu } from "./trust-i18n";

// The catalogues that load with the admin and account chunks (kept out of the public site's
// first-load JavaScript), checked as the app's own are (src/i18n/catalogues.test.ts).
const CATALOGUES: [string, Catalogue, Catalogue, ReadonlySet<string>][] = [
  // `perm.roleOf` is placeholders only.
  ["the admin tools", toolsEn, toolsRu, new Set(["perm.roleOf"])],
  ["readable records", recordsEn, recordsRu, new Set()],
  ["the editors' screens", editorEn, editorRu, new Set()],
  // `trust.diff.empty` is a dash.
  ["audit, history and drafts", trustEn, trustRu, new Set(["trust.diff.empty"])],
  ["two-factor sign-in and sessions", securityEn, securityRu, new Set()],
  ["outgoing webhooks", hooksEn, hooksRu, new Set()],
  ["API keys", keysEn, keysRu, new Set()],
  ["AI answers", aiEn, aiRu, new Set()],
  // Telegram is written so in Russian too.
  ["email confirmation and the reset's outcome", emailEn, emailRu, new Set(["email.reset.provider.telegram", "email.reset.provider.oidc"])],
];

describe.each(CATALOGUES)("the words of %s", (_name, en, ru, same) => {
  it("exist in en and ru with the same keys, no empty value and the same interpolations", () => {
    expect(catalogueProblems({ en: en as Tree, ru: ru as Tree })).toEqual([]);
  });

  it("leave no English in the Russian words", () => {
    expect(untranslated(en as Tree, ru as Tree, same)).toEqual({ same: [], stale: [] });
  });

  it("give every plural key the four forms the translator picks from", () => {
    expect(missingPluralForms(en as Tree, ru as Tree)).toEqual([]);
  });
});
