import type { AdminPart } from "@/admin/registry";
import { MediaLibrary } from "@/admin/media-library";

/** Files in the admin: the media library instead of the files' table. */
export const adminPart: AdminPart = { views: { "file-storage.file": MediaLibrary } };
