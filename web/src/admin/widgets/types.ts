import type { FieldKind, FieldMeta, Meta } from "@/api/meta";

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

export type Widget = (props: WidgetProps) => React.ReactNode;
export type WidgetMap = Record<FieldKind, Widget>;
