// `csvFromZipStream`: one CSV entry of a zip temp file, inflated as the zip
// streams in (the archive family's zip reader) and stored as a new temp file
// as it inflates: the temp-file cap refuses an entry past 25 MiB while it
// inflates, so a zip bomb stops there. Entries before the chosen one are
// skipped (their inflation stopped at once) and the zip is read no further
// than the chosen entry's end.
import { validationFailed } from "../../../lib/validate";
import { zipEntries } from "../archive/zip-entries";
import { openTempFile, saveTempFile } from "../file-ref";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { action } from "../action";
import { csvDeclarations } from "../../../definition/language/actions/csv";

/** macOS archivers add `__MACOSX/._x.csv` resource forks beside the real files. */
const isCsvEntry = (path: string) => /\.csv$/i.test(path) && !path.startsWith("__MACOSX/");
const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

export const csvFromZipStream = action(csvDeclarations.csvFromZipStream, {
  permissions: TEMP_FILES,
  async execute(config, _invocation, ctx) {
    const wanted = config.entry === undefined ? isCsvEntry : (path: string) => path === config.entry;
    return withServices(ctx, async (services) => {
      const { body } = await openTempFile(services, config.tempFileId);
      const entries = zipEntries(body);
      try {
        for await (const entry of entries) {
          if (entry.kind !== "file" || !wanted(entry.name)) {
            await entry.body.cancel();
            continue;
          }
          const ref = await saveTempFile(services, { name: config.name ?? (baseName(entry.name) || "entry.csv"), contentType: "text/csv", body: entry.body });
          return { kind: "success", result: { ...ref, entry: entry.name } };
        }
      } finally {
        // The rest of the zip is not needed once the entry is out.
        await entries.return(undefined);
      }
      const line =
        config.entry === undefined
          ? "config.tempFileId: the zip has no entry whose name ends in .csv"
          : `config.entry: the zip has no entry ${JSON.stringify(config.entry)}`;
      throw validationFailed([line], "The zip has no such entry");
    });
  },
});
