//! notification's public widget: "news by email". The server has no public route to subscribe an
//! address yet (topics and subscriptions are admins' records), so the form is shown as what it will
//! be, switched off, with a plain note and a way to follow the news meanwhile (the blog). When the
//! route exists, `SUBSCRIBE_OPEN` turns it on (docs/widgets.md).
import { useId } from "react";
import { Link } from "react-router";
import { tr } from "@/site/content";
import { siteLink } from "@/site/link";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { Block } from "@/site/blocks";
import { useWidgetsT } from "@/site/widgets-i18n";

/** Whether visitors can subscribe (false until the server has a public subscription route). */
export const SUBSCRIBE_OPEN = false;

function SubscribeUpdates({ data, lang }: VariantProps) {
  const t = useWidgetsT();
  const id = useId();
  const note = `${id}-note`;
  return (
    <Block data={{ ...data, title: null }} lang={lang}>
      <div className="grid gap-6 rounded-3xl bg-emerald-50 p-6 sm:p-10 lg:grid-cols-2 lg:items-center" data-testid="subscribe-updates">
        <div>
          <h2 className="text-3xl font-bold tracking-tight">{tr(data.title, lang) || t("widgets.notification.title")}</h2>
          {tr(data.subtitle, lang) ? <p className="mt-3 text-lg text-neutral-700">{tr(data.subtitle, lang)}</p> : null}
          <p id={note} className="mt-3 text-neutral-700">
            {t("widgets.notification.soon")}
          </p>
          <Link to={siteLink("/blog", lang)} className="mt-4 inline-flex font-semibold text-emerald-900 underline underline-offset-4 hover:no-underline">
            {t("widgets.notification.blog")}
          </Link>
        </div>
        <form className="grid gap-2" aria-describedby={note} onSubmit={(e) => e.preventDefault()}>
          <label htmlFor={`${id}-email`} className="text-sm font-medium">
            {t("widgets.notification.email")}
          </label>
          <div className="flex flex-col gap-3 sm:flex-row">
            <input
              id={`${id}-email`}
              type="email"
              name="email"
              autoComplete="email"
              placeholder={t("widgets.notification.placeholder")}
              disabled={!SUBSCRIBE_OPEN}
              aria-describedby={note}
              className="h-12 min-w-0 flex-1 rounded-full border border-neutral-300 bg-white px-5 text-base disabled:cursor-not-allowed disabled:bg-neutral-100"
            />
            <button type="submit" disabled={!SUBSCRIBE_OPEN} className="h-12 rounded-full bg-emerald-800 px-8 font-semibold text-white disabled:cursor-not-allowed disabled:bg-neutral-500">
              {t("widgets.notification.subscribe")}
            </button>
          </div>
        </form>
      </div>
    </Block>
  );
}

/** Every declared variant of notification widgets. */
export const variants = { default: SubscribeUpdates } satisfies VariantsOf<"notification">;
