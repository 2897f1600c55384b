import { cleanup, render, screen } from "@testing-library/react";
import i18n from "@/i18n";
import { notRendered as rbacNotRendered, variants as rbac } from "@/modules/rbac/variants";
import { variants as crm } from "@/modules/crm/variants";
import { RegistryContext, RenderVariant, variantsPart, type Registry } from "./registry";
import { addedBy, registerSite } from "./slots";
import type { AddedBy, DeclaredVariant, VariantKey, VariantsOf } from "./variants";

const Shown = () => <p>shown</p>;
const widget = (variant: string) => ({ id: "w", _entity: "test.widget", variant });

function renderWith(registry: Registry, module: string, variant: string, entity?: string) {
  return render(
    <RegistryContext.Provider value={registry}>
      <RenderVariant module={module} entity={entity} data={widget(variant)} lang="en" url="/" />
    </RegistryContext.Provider>,
  );
}

describe("a variant a higher module adds to a lower one's widget", () => {
  afterEach(cleanup);

  it("is rendered by the part of the module that added it, and only that variant", () => {
    registerSite({ adds: { by: "high", to: { low: ["list-high-module-things-default"] } } });
    expect(addedBy("low", "list-high-module-things-default")).toBe("high");
    expect(addedBy("low", "default")).toBe("low");
    expect(addedBy("other", "list-high-module-things-default")).toBe("other");
    const registry: Registry = {
      low: variantsPart({ default: () => <p>low's own</p> }),
      high: variantsPart({ "list-high-module-things-default": () => <p>high's things</p> }),
    };
    renderWith(registry, "low", "list-high-module-things-default");
    expect(screen.getByText("high's things")).toBeInTheDocument();
    cleanup();
    renderWith(registry, "low", "default");
    expect(screen.getByText("low's own")).toBeInTheDocument();
  });
});

describe("an unknown variant", () => {
  afterEach(async () => {
    cleanup();
    vi.unstubAllEnvs();
    await i18n.changeLanguage("en");
  });

  it("shows a marker naming module, entity and variant in development builds", () => {
    const registry: Registry = { crm: variantsPart({ default: Shown }) };
    renderWith(registry, "crm", "form-list-fancy");
    const marker = screen.getByTestId("unknown-variant");
    expect(marker).toHaveTextContent("No component renders variant “form-list-fancy” of crm.widget");
    expect(marker).toHaveAttribute("data-module", "crm");
    expect(marker).toHaveAttribute("data-entity", "widget");
    expect(marker).toHaveAttribute("data-variant", "form-list-fancy");
  });

  it("names another entity's variant, in the page's language, and a module nobody registered", async () => {
    await i18n.changeLanguage("ru");
    const { unmount } = renderWith({ blog: { default: Shown } }, "blog", "teaser", "article");
    expect(screen.getByTestId("unknown-variant")).toHaveTextContent("Нет компонента для варианта «teaser» сущности blog.article");
    unmount();
    renderWith({}, "startup", "default");
    expect(screen.getByTestId("unknown-variant")).toHaveAttribute("data-module", "startup");
  });

  it("renders nothing in production builds", () => {
    vi.stubEnv("DEV", false);
    const { container } = renderWith({ crm: variantsPart({ default: Shown }) }, "crm", "form-list-fancy");
    expect(container).toBeEmptyDOMElement();
    renderWith({ crm: { default: Shown } }, "crm", "form-list-fancy");
    expect(screen.queryByTestId("unknown-variant")).toBeNull();
  });

  it("is not a declared variant the module leaves out on purpose: that renders nothing, unmarked", () => {
    const { container } = renderWith({ rbac: variantsPart(rbac, rbacNotRendered) }, "rbac", "default");
    expect(container).toBeEmptyDOMElement();
  });

  it("is not a variant with a component", () => {
    renderWith({ crm: variantsPart({ default: Shown }) }, "crm", "default");
    expect(screen.getByText("shown")).toBeInTheDocument();
    expect(screen.queryByTestId("unknown-variant")).toBeNull();
  });
});

// Type-level: `tsc --noEmit` (npm run typecheck) checks this file; an unused `@ts-expect-error`
// is itself an error, so each line below must stay a type error.
describe("a module's variants map, typed against the server's declared variants", () => {
  it("must render every declared variant, and only those", () => {
    const C = () => null;
    // @ts-expect-error: crm widgets declare "form-list-default", and this map has no component for it.
    const missing = { default: C } satisfies VariantsOf<"crm">;
    // @ts-expect-error: crm widgets declare no "form-list-fancy".
    const extra = { default: C, "form-list-default": C, "form-list-fancy": C } satisfies VariantsOf<"crm">;
    // @ts-expect-error: blog articles declare "overview-default" and "overview-with-private-content-default" too.
    const entity = { ...blogWidgets(C), "article:default": C } satisfies VariantsOf<"blog", "article">;
    // @ts-expect-error: only a declared variant can be left out.
    const bogus = ["form-list-fancy"] as const satisfies readonly VariantKey<"crm">[];
    // @ts-expect-error: a variant left out must not have a component as well.
    const both = { default: C, "form-list-default": C } satisfies VariantsOf<"crm", never, "default">;
    // @ts-expect-error: a misspelt entity ("from" for "form") has no schema; the key it requires names the mistake.
    const misspelt = { default: C } satisfies VariantsOf<"crm", "from">;
    const complete = { default: C, "form-list-default": C } satisfies VariantsOf<"crm">;
    expect([missing, extra, entity, bogus, both, misspelt, complete]).toHaveLength(7);
  });

  it("holds for the modules' own maps, and fails for one missing a declared variant", () => {
    expectTypeOf<DeclaredVariant<"crm", "widget">>().toEqualTypeOf<"default" | "form-list-default">();
    expectTypeOf(crm).toExtend<VariantsOf<"crm">>();
    type RbacMap = VariantsOf<"rbac", never, (typeof rbacNotRendered)[number], AddedBy<"rbac", "social" | "ecommerce">>;
    expectTypeOf(rbac).toExtend<RbacMap>();
    // The variants social and ecommerce add to rbac's widget are theirs, not in rbac's map.
    expectTypeOf<AddedBy<"rbac", "social">>().toEqualTypeOf<"subject-list-social-module-profile-default" | "subject-overview-social-module-profile-overview-default">();
    expect(Object.keys(rbac)).not.toContain("subject-list-social-module-profile-default");
    expectTypeOf<Omit<typeof rbac, "subject-list-default">>().not.toExtend<RbacMap>();
    expect(Object.keys(rbac)).not.toContain("default");
  });
});

/** Every blog widget variant but the bare `default`. */
function blogWidgets<T>(c: T) {
  return {
    "category-list-default": c,
    "category-list-button-default": c,
    "category-overview-default": c,
    "article-list-default": c,
    "article-overview-default": c,
    "article-overview-with-private-content-default": c,
    "article-overview-ecommerce-module-product-list-default": c,
    default: c,
  };
}
