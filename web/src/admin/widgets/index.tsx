import { BooleanWidget, EnumWidget, JsonWidget, NumberWidget, TextWidget } from "./basic";
import { DateTimeWidget } from "./datetime";
import { FileWidget } from "./file";
import { ReferenceWidget } from "./reference";
import { RichTextWidget } from "./rich-text";
import { TranslationsWidget } from "./translations";
import type { FileProps, WidgetMap, WidgetProps } from "./types";

/** Field kind → widget. Exhaustive: a new kind without a widget does not compile. */
export const widgets: WidgetMap = {
  uuid: ReferenceWidget,
  text: TextWidget,
  int: NumberWidget,
  decimal: NumberWidget,
  bool: BooleanWidget,
  timestamp: DateTimeWidget,
  translations: TranslationsWidget,
  rich_text: RichTextWidget,
  json: JsonWidget,
  enum: EnumWidget,
  reference: ReferenceWidget,
};

/** The widget for a field: fields declared as files get the file widget, the rest go by kind. */
export function FieldWidget(props: WidgetProps & FileProps) {
  const { file, onFile, progress, ...rest } = props;
  if (rest.field.format === "file") return <FileWidget {...rest} file={file} onFile={onFile} progress={progress} />;
  if (rest.field.kind === "uuid" && !rest.field.target) return <TextWidget {...rest} />;
  const W = widgets[rest.field.kind];
  return <W {...rest} />;
}

export type { FileProps, WidgetProps };
