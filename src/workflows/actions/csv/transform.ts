// `transformCsvStream`: each row of a CSV temp file through a JSONata
// mapping, written to a new CSV temp file as it goes. The mapping is compiled
// once and evaluated per row under the smart-value bounds (time, steps,
// depth, sizes), each row with a budget of its own; it reads the row as an
// object keyed by the header (values strings) and answers an object (its
// keys are the output columns) or null/undefined to drop the row.
import { ExpressionError, ExpressionSyntaxError, compileExpression, type CompiledExpression } from "../../../lib/smart-values";
import { ApiError, errorValue } from "../../../lib/errors";
import { action } from "../action";
import { openCsv } from "./records";
import { writeCsv } from "./output";
import { TEMP_FILES } from "../temp-output";
import { withServices } from "../../../access/confined-services";
import { csvDeclarations } from "../../../definition/language/actions/csv";

function mappingFailed(line: number, reason: string): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", `config.mapping: line ${line}: ${reason}`, { field: "config.mapping", line });
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

export const transformCsvStream = action(csvDeclarations.transformCsvStream, {
  permissions: TEMP_FILES,
  async execute(config, _invocation, ctx) {
    let expression: CompiledExpression;
    try {
      expression = compileExpression(config.mapping);
    } catch (e) {
      if (!(e instanceof ExpressionSyntaxError)) throw e;
      const line = `config.mapping: invalid JSONata expression: ${e.message}${e.position !== undefined ? ` (at character ${e.position})` : ""}`;
      return { kind: "error", error: errorValue("VALIDATION_FAILED", "The mapping does not compile", { errors: [line], validation_errors: [line] }) };
    }
    return withServices(ctx, async (services) => {
      const source = await openCsv(services, config.tempFileId, "config.tempFileId", config.delimiter);
      try {
        const result = await writeCsv(services, config.name ?? source.name, "config.mapping", async (out) => {
          let columns = config.columns;
          let known = new Set(columns);
          if (columns) await out.line(columns);
          for await (const { cells, line } of source.rows) {
            // An empty cell is no key (undefined to JSONata); fromEntries defines a `__proto__` header as an own key.
            const row = Object.fromEntries(source.header.flatMap((h, i) => (cells[i] === undefined ? [] : [[h, cells[i]]])));
            let mapped: unknown;
            try {
              mapped = await expression.evaluate(row);
            } catch (e) {
              if (e instanceof ExpressionError) throw mappingFailed(line, e.message);
              throw e;
            }
            if (mapped === undefined || mapped === null) continue;
            if (typeof mapped !== "object" || Array.isArray(mapped))
              throw mappingFailed(line, `answered ${kindOf(mapped)}; it must answer an object, or null to drop the row`);
            const keys = Object.keys(mapped);
            if (!columns) {
              if (!keys.length) throw mappingFailed(line, "answered an object with no keys, so there are no columns; set config.columns");
              columns = keys;
              known = new Set(keys);
              await out.line(columns);
            }
            const outside = keys.filter((k) => !known.has(k));
            if (outside.length) {
              throw mappingFailed(
                line,
                `answered ${outside.map((k) => JSON.stringify(k)).join(", ")}, not among the columns ${JSON.stringify(columns)}; set config.columns to every output column`,
              );
            }
            const values = mapped as Record<string, unknown>;
            await out.line(columns.map((c) => (Object.hasOwn(values, c) ? values[c] : undefined)));
          }
        });
        return { kind: "success", result };
      } finally {
        await source.close();
      }
    });
  },
});
