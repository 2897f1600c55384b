import { linked } from "@/site/content";
import type { VariantProps } from "@/site/registry";
import type { VariantsOf } from "@/site/variants";
import { Block, StoredFile } from "@/site/blocks";

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

/** Every declared variant of file-storage widgets. */
export const variants = { default: Files } satisfies VariantsOf<"file-storage">;
