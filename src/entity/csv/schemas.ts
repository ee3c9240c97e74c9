// Request and response schemas of entity/csv: the routes validate with them and
// document them, and service input types are derived from them.
import { TYPE_NAME } from "../entity-types/schemas";
import { queryBody } from "../query/schemas";

/** The export body; the exportEntitiesToCsv action takes the same fields in camelCase. */
export const exportBody = {
  type: "object",
  additionalProperties: false,
  required: ["type_name"],
  properties: {
    type_name: TYPE_NAME,
    filter: queryBody.properties.filter,
    sort: queryBody.properties.sort,
    columns: {
      type: "array",
      minItems: 1,
      maxItems: 500,
      items: { type: "string", minLength: 1, maxLength: 1000 },
      description: 'Header names in order: "id", "name", "identifier_key", "created_at", "updated_at", or attribute paths ("price", "dims.w")',
    },
    escape_formulas: {
      type: "boolean",
      default: true,
      description:
        "Prefix with ' every text cell (header included) starting with =, +, -, @, tab or carriage return, so a spreadsheet does not run it as a formula (OWASP). Numbers are never prefixed. Export with false to import the file back unchanged.",
    },
  },
} as const;
