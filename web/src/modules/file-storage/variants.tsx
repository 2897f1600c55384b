import { linked } from "@/site/content";
import type { ModuleVariants, VariantProps } from "@/site/registry";
import { Block, StoredFile } from "../shared";

function Files({ data, lang }: VariantProps) {
  return (
    <Block data={data} lang={lang}>
      <div className="grid gap-6 md:grid-cols-2">
        {linked(data, "widgets-to-files").map((f) => (
          <StoredFile key={f.id} file={f} className="rounded-2xl" testId="file" />
        ))}
      </div>
    </Block>
  );
}

export const variants: ModuleVariants = { default: Files };
