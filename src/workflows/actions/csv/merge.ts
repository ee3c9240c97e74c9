// `mergeCsvStreams`: CSV temp files one after the other into one CSV temp
// file. The header is the union of the inputs' headers in first-seen order
// (or the first file's only); a column a file lacks is an empty cell. The
// headers are read first (each file opened and closed after its first
// record), then each file's rows are streamed through in turn.
import { action } from "../action";
import { writeCsv } from "./output";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { openCsv } from "./records";
import { csvDeclarations } from "../../../definition/language/actions/csv";

export const mergeCsvStreams = action(csvDeclarations.mergeCsvStreams, {
  permissions: TEMP_FILES,
  async execute(config, _invocation, ctx) {
    return withServices(ctx, async (services) => {
      const open = (i: number) => openCsv(services, config.tempFileIds[i], `config.tempFileIds[${i}]`, config.delimiter);
      const columns: string[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < config.tempFileIds.length; i++) {
        const source = await open(i);
        await source.close();
        if (i > 0 && config.columns === "first") continue;
        for (const name of source.header) if (!seen.has(name)) seen.add(name), columns.push(name);
      }
      const result = await writeCsv(services, config.name ?? "merged.csv", "config.tempFileIds", async (out) => {
        await out.line(columns);
        for (let i = 0; i < config.tempFileIds.length; i++) {
          const source = await open(i);
          try {
            const at = new Map(source.header.map((name, index) => [name, index]));
            const picks = columns.map((name) => at.get(name) ?? -1);
            for await (const { cells } of source.rows) await out.line(picks.map((index) => (index < 0 ? undefined : cells[index])));
          } finally {
            await source.close();
          }
        }
      });
      return { kind: "success", result };
    });
  },
});
