import { UserRound } from "lucide-react";
import { useNavigate } from "react-router";
import { useTranslation } from "@/i18n";
import { displayName, isSignedIn, useLogout, useMe } from "@/lib/session";
import { Button } from "@/ui/button";
import { Dropdown, DropdownContent, DropdownItem, DropdownLabel, DropdownSeparator, DropdownTrigger } from "@/ui/dropdown";
import { AccountPlaceholder, LoginButton } from "./header-actions";
import { useLink } from "./link";

/** The signed-in person's menu in the header: their name (never an id), then their account's places. */
export default function AccountMenu() {
  const { t } = useTranslation();
  const link = useLink();
  const me = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  if (me.isPending) return <AccountPlaceholder />;
  const s = me.data;
  // A guest (a checkout's subject) signs in like any visitor.
  if (!isSignedIn(s)) return <LoginButton />;
  const name = displayName(s, t("account.account"));
  return (
    <Dropdown modal={false}>
      <DropdownTrigger asChild>
        {/* The name shows from xl; below, the icon (the name is its label and its tooltip), so the
            header keeps to one line at 1024 px with a long address. */}
        <Button variant="outline" data-testid="account-menu" className="max-w-40 shrink-0 px-3 xl:px-4" title={name}>
          <UserRound aria-hidden className="h-4 w-4 shrink-0" />
          <span className="sr-only xl:hidden">{name}</span>
          <span className="hidden min-w-0 truncate xl:block">{name}</span>
        </Button>
      </DropdownTrigger>
      <DropdownContent>
        <DropdownLabel className="px-2 py-1.5 text-sm font-medium [overflow-wrap:anywhere]">{name}</DropdownLabel>
        <DropdownSeparator />
        <DropdownItem onSelect={() => void navigate(link("/rbac/subjects/settings"))}>{t("account.settings")}</DropdownItem>
        <DropdownItem onSelect={() => void navigate(link("/ecommerce/orders"))}>{t("commerce.myOrders")}</DropdownItem>
        {s.admin ? <DropdownItem onSelect={() => void navigate("/admin")}>{t("account.admin")}</DropdownItem> : null}
        <DropdownItem onSelect={() => logout.mutate(undefined, { onSettled: () => void navigate("/") })}>{t("account.logout")}</DropdownItem>
      </DropdownContent>
    </Dropdown>
  );
}
