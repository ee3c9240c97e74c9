// POST /entity/entities/export (docs/api.md): the entities of a
// type matching `filter`, in `sort` order, as RFC 4180 CSV. Pages of 1000
// are read by keyset on the owner path in one snapshot and written to the
// response as they come, so memory stays flat whatever the row count.
import { assertTenantRows, type TenantDb, type TenantReader } from "../../db/client";
import { TypeReader } from "../entity-types/cache";
import type { ReadScope } from "../../db/entity-access";
import { valueAt } from "../entities/identifier-key";
import { relatedTypeNames } from "../query/filter";
import type { QueryType } from "../query/operands";
import { compiled, Params } from "../../db/params";
import { applyTrigramThreshold, compileQuery, pageStatement, readTypes } from "../query/service";
import type { EntityType } from "../entity-types/store";
import { attributeColumns, columnOf, csvLine, schemaColumns, type Column } from "./columns";
import type { FromSchema } from "json-schema-to-ts";
import type { exportBody } from "./schemas";

export const EXPORT_PAGE = 1000;

export type ExportInput = FromSchema<typeof exportBody, { keepDefaultedPropertiesOptional: true }>;

interface Prepared {
  type: EntityType;
  types: Map<string, QueryType>;
  /** Header names, or null to take them from the first page (a schema without properties). */
  columns: string[] | null;
  /** The rows the caller may export. */
  scope: ReadScope;
}

/** Everything that can fail with a 4xx happens here, before the response starts. */
export async function prepareExport(tenant: TenantDb, input: ExportInput): Promise<Prepared> {
  return tenant.read(async (reader) => {
    const { root: type, types, scope } = await readTypes(reader, new TypeReader(reader, false), input.type_name, relatedTypeNames(input.filter));
    compileQuery(scope, type, types, input);
    const fromSchema = schemaColumns(type.schema);
    const columns = input.columns ?? (fromSchema.length ? ["id", "name", ...attributeColumns(fromSchema)] : null);
    return { type, types, columns, scope };
  });
}

type Row = {
  id: string;
  tenant_id: string;
  name: string;
  identifier_key: string;
  created_at: string;
  updated_at: string;
  attributes: Record<string, unknown>;
} & Record<string, unknown>;

/** Dotted names of the leaves of some rows' attributes (for a type whose schema names none). */
function discoveredColumns(rows: Row[]): string[] {
  const names = new Set<string>();
  const walk = (value: Record<string, unknown>, prefix: string) => {
    for (const [key, v] of Object.entries(value)) {
      if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length) walk(v as Record<string, unknown>, `${prefix}${key}.`);
      else names.add(`${prefix}${key}`);
    }
  };
  rows.forEach((r) => walk(r.attributes, ""));
  return ["id", "name", ...attributeColumns([...names].sort())];
}

function line(row: Row, columns: Column[], escapeFormulas: boolean): string {
  return csvLine(
    columns.map((c) => ("field" in c ? row[c.field] : valueAt(row.attributes, c.attribute))),
    escapeFormulas,
  );
}

/** One page after `position`, and the position of its last row. */
async function page(reader: TenantReader, prepared: Prepared, input: ExportInput, position: unknown[] | null) {
  const q = compileQuery(prepared.scope, prepared.type, prepared.types, input, new Params());
  const text = pageStatement(q, position, EXPORT_PAGE);
  if (!position) await applyTrigramThreshold(reader, q.compilation);
  const { rows } = await reader.run<Row>(compiled(text, q.params.values));
  assertTenantRows(rows, prepared.scope.tenantId);
  const last = rows[rows.length - 1];
  return { rows, last: last ? q.keys.map((_, i) => last[`k${i}`] ?? null) : null };
}

/**
 * The CSV as a stream. It reads on a connection of its own (the request's
 * closes when the handler returns, long before a large export is written),
 * closed at the end; an error after the header aborts the stream.
 */
export function exportStream(tenant: TenantDb, prepared: Prepared, input: ExportInput): { body: ReadableStream<Uint8Array>; done: Promise<void> } {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const escapeFormulas = input.escape_formulas !== false;
  const done = (async () => {
    try {
      await tenant.withOwnConnection((own) =>
        own.read(
          async (reader) => {
            const header = (names: string[]) => writer.write(encoder.encode(csvLine(names, escapeFormulas)));
            let names = prepared.columns;
            if (names) await header(names);
            let position: unknown[] | null = null;
            for (;;) {
              const { rows, last } = await page(reader, prepared, input, position);
              if (!names) {
                names = discoveredColumns(rows);
                await header(names);
              }
              const columns = names.map(columnOf);
              if (rows.length) await writer.write(encoder.encode(rows.map((r) => line(r, columns, escapeFormulas)).join("")));
              if (rows.length < EXPORT_PAGE) return;
              position = last;
            }
          },
          { snapshot: true },
        ),
      );
      await writer.close();
    } catch (e) {
      await writer.abort(e).catch(() => {});
    }
  })();
  return { body: readable, done };
}
