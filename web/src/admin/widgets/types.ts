import type { FieldKind, FieldMeta, Meta } from "@/api/meta";
import type { UploadProgress } from "@/api/upload";

export interface WidgetProps {
  id: string;
  field: FieldMeta;
  value: unknown;
  onChange: (value: unknown) => void;
  meta: Meta;
  lang: string;
  disabled?: boolean;
  invalid?: boolean;
}

/** What the form tells a file field's widget besides its value: the file waiting to be sent with
 * the next save (held by the form), how to change it, and how far its upload got. */
export interface FileProps {
  /** The picked file; undefined lets the widget hold it itself. */
  file?: File | null;
  onFile?: (f: File | null) => void;
  /** Set while the save is sending the file. */
  progress?: UploadProgress | null;
}

export type Widget = (props: WidgetProps) => React.ReactNode;
export type WidgetMap = Record<FieldKind, Widget>;
