// Indexed attribute values too large for a btree entry, refused before
// anything is written (Postgres would refuse the index row mid-statement;
// the identifier key has its own check in identifier-key.ts): `text` and
// `numeric` attributes that are filterable or sortable (the btree ones; see
// desiredIndexes). `timestamptz` and `boolean` values index as fixed-size
// values or null; `text_array` and searchable text go to GIN indexes, which
// take any size.
import { MAX_INDEXED_BYTES, SURELY_FITS, indexedValueBytes, tooLargeToIndex, type IndexedAttribute } from "../indexed-attributes";
import { valueAt } from "./identifier-key";

/** Error lines for indexed attribute values too large for their btree index. */
export function oversizedAttributes(indexed: IndexedAttribute[], attributes: Record<string, unknown>, at = "attributes"): string[] {
  const errors: string[] = [];
  for (const attr of indexed) {
    if ((attr.type !== "text" && attr.type !== "numeric") || !(attr.filterable || attr.sortable)) continue;
    const value = valueAt(attributes, attr.path);
    // Numbers, booleans, null and short strings always fit: only long strings and objects are measured.
    const measured = typeof value === "string" ? value.length > SURELY_FITS : value !== null && typeof value === "object";
    if (!measured) continue;
    const bytes = indexedValueBytes(value);
    if (bytes > MAX_INDEXED_BYTES) errors.push(tooLargeToIndex(`${at}.${attr.path.join(".")}`, bytes));
  }
  return errors;
}
