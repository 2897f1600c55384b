import { z } from "zod";
import type { TFunction } from "@/i18n";

/** The shortest password the server takes (crates/modules/rbac/src/password.rs). */
export const MIN_PASSWORD = 8;
export const emailField = (t: TFunction) => z.string().trim().email(t("errors.email"));
export const newPassword = (t: TFunction) => z.string().min(MIN_PASSWORD, t("errors.minLength", { count: MIN_PASSWORD }));
/** An email and a new password (registration, adding an email to an account). */
export const credentials = (t: TFunction) => z.object({ email: emailField(t), password: newPassword(t) });
export type CredentialsForm = z.infer<ReturnType<typeof credentials>>;
