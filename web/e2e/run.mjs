// Runs every end-to-end spec in order against one fresh stack; exits non-zero on any failure,
// console error, non-loopback request or axe-core violation. Screenshots go to e2e/artifacts/.
import { accountSpecs, s_problems } from "./account.spec.mjs";
import { auditProblems, auditSpecs } from "./admin-audit.spec.mjs";
import { blogSpecs } from "./blog.spec.mjs";
import { adminRecordsSpecs } from "./admin-records.spec.mjs";
import { adminToolsSpecs } from "./admin-tools.spec.mjs";
import { adminSpecs } from "./admin.spec.mjs";
import { adminWordsSpecs } from "./admin-words.spec.mjs";
import { adminEditorSpecs } from "./admin-editor.spec.mjs";
import { analyticsSpecs } from "./analytics.spec.mjs";
import { chatSpecs } from "./chat.spec.mjs";
import { donorSpecs } from "./donor.spec.mjs";
import { artifacts, startStack } from "./harness.mjs";
import { i18nSpecs } from "./i18n.spec.mjs";
import { mediaSpecs } from "./media.spec.mjs";
import { siteSpecs } from "./site.spec.mjs";
import { ssrSpecs } from "./ssr.spec.mjs";
import { visitorSpecs } from "./visitor.spec.mjs";
import { webhookSpecs } from "./webhooks.spec.mjs";
import { oidcSpecs } from "./oidc.spec.mjs";
import { mcpSpecs } from "./mcp.spec.mjs";

const filter = process.argv[2];
const specs = [...siteSpecs, ...visitorSpecs, ...ssrSpecs, ...i18nSpecs, ...adminSpecs, ...auditSpecs, ...adminRecordsSpecs, ...adminToolsSpecs, ...adminWordsSpecs, ...adminEditorSpecs, ...mediaSpecs, ...accountSpecs, ...chatSpecs, ...analyticsSpecs, ...blogSpecs, ...donorSpecs, ...webhookSpecs, ...oidcSpecs, ...mcpSpecs].filter(([name]) => !filter || filter.split("|").some((f) => name.includes(f)));
const stack = await startStack();
const state = {};
let failed = 0;
const started = Date.now();
for (const [name, fn] of specs) {
  const t0 = Date.now();
  try {
    await fn(stack, state);
    console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`  ✗ ${name}\n    ${String(e?.stack ?? e).split("\n").slice(0, 8).join("\n    ")}`);
    const pages = [state.w, state.a, state.linker, state.user, state.site, state.mobile, state.tools, state.toolsMobile, state.audit, state.totp, state.donor, state.words, state.words2, state.editor, state.hooks, state.hooksMobile, state.oidc, state.oidcPhone, ...Object.values(state.chat ?? {})].filter(Boolean).map((w) => w.page);
    for (const [i, p] of pages.entries()) await p.screenshot({ path: `${artifacts}/failure-${failed}-${i}.png` }).catch(() => undefined);
  }
}
const problems = [state.w, state.a, state.linker, state.user, state.site, state.mobile, state.tools, state.toolsMobile, state.audit, state.totp, state.words, state.words2, state.editor, state.hooks, state.hooksMobile, state.oidc, state.oidcPhone, ...Object.values(state.chat ?? {})].filter(Boolean).flatMap((w) => w.problems).concat(s_problems, auditProblems);
for (const p of problems) console.log(`  ✗ ${p}`);
await stack.stop();
console.log(`${specs.length - failed}/${specs.length} end-to-end specs passed, ${problems.length} browser problems, ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${artifacts}`);
process.exit(failed || problems.length ? 1 : 0);
