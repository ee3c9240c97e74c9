// What every save-time check shares: the problems of one document as coded
// issues `{ path, code, message }` (each once), the `<path>: <message>` lines
// derived from them, and the defensive reading of a document whose shape the
// schema layer may already have refused.
import { isObject } from "../../lib/is-object";

export type Obj = Record<string, unknown>;

/** At most `max` items: a longer array is already refused by the schema, and the work stays bounded. */
export const items = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : []);
export const has = (o: Obj, key: string) => Object.hasOwn(o, key) && o[key] !== undefined;
/** A spec value decided when it is resolved: a string with a `{{ }}` template, or a `$`-directive. */
export const templated = (value: unknown) =>
  (typeof value === "string" && value.includes("{{")) || (isObject(value) && Object.keys(value).some((key) => key.startsWith("$")));

/** `.key` for identifiers (`key` at the root, path ""), `["key"]` for anything else (spaces, dots, NUL). */
export function child(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  // A document whose paths start at its root (an app spec) names its top-level keys bare.
  return path ? `${path}.${key}` : key;
}

/**
 * Every issue code a save-time check can give, whatever the document kind:
 * a client tells problems apart by these, so each is declared once here.
 */
export const ISSUE_CODES = [
  // The layers before the semantic checks.
  "input_refused",
  "schema_violation",
  // Any document kind.
  "required",
  "secret_ref_in_definition",
  "invalid_expression",
  "expression_scope",
  "function_refused",
  "auth_profile_invalid",
  "auth_profile_unknown_reference",
  "auth_profile_scope",
  "auth_conflict",
  "contract_conflict",
  "contract_schema_invalid",
  "duplicate_step_id",
  // Workflows and jobs.
  "duplicate_id",
  "step_shape",
  "unknown_dependency",
  "dependency_cycle",
  "nesting_too_deep",
  "too_many_actions",
  "http_option_invalid",
  "action_config_invalid",
  "trigger_shape",
  "cron_invalid",
  "webhook_signature_location",
  "attribute_filter_invalid",
  // App specs.
  "unknown_config_scope",
  "unknown_schema",
  "default_policy_unknown",
  "unknown_widget",
  "unknown_page",
  "unknown_data_source",
  "unknown_job",
  "tabs_id_required",
  "container_not_top_level",
  "inline_node_forbidden_key",
  "scan_card_shape",
  "duplicate_upload_slot",
  "file_field_max_size",
  "file_field_accept",
  "file_field_preview_page",
  "provider_extractor_source",
  "provider_identity_required",
  "provider_identity_fixed_path",
  "jwks_uri_template_tid",
  "function_name_reserved",
  "action_not_synchronous",
  "unknown_component",
  "component_config_invalid",
  "unknown_handler",
  "component_schema_invalid",
  // App specs, the checks that read the database: a `shares` entry naming no
  // resource of the owner, no tenant, or the owner itself.
  "share_unknown_resource",
  "share_unknown_tenant",
  "share_own_tenant",
] as const;

export type IssueCode = (typeof ISSUE_CODES)[number];

/** One problem of a document: where (dotted from the root, `[i]` for array positions), which rule, and why. */
export interface Issue {
  path: string;
  code: IssueCode;
  message: string;
}

/** The issue as a `<path>: <message>` line. */
export const issueLine = (issue: Issue): string => `${issue.path}: ${issue.message}`;

/** A path as `child` renders it (a bracketed key may hold `: `), then `: `. */
const LINE = /^((?:[^:[]|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*): ([\s\S]*)$/;

/** A `<path>: <reason>` line from a nested checker as an issue; a line without a path is the root's. */
export function lineIssue(line: string, code: IssueCode): Issue {
  const match = LINE.exec(line);
  return match ? { path: match[1], code, message: match[2] } : { path: "", code, message: line };
}

/** What the checks of one document found. */
export interface Findings {
  issues: Issue[];
  /** True when a problem is a secret reference. */
  secretRef: boolean;
}

/** The issues found so far, and whether one is a secret reference. */
export class Collector {
  readonly issues: Issue[] = [];
  secretRef = false;
  private readonly seen = new Set<string>();
  private readonly secretPaths = new Set<string>();

  constructor(
    /** Where a secret reference belongs instead, as the document kind says it. */
    private readonly secretAdvice = "set them as env values at activation and read {{ config.env.NAME }}",
  ) {}

  /** The issues as lines, in the order found. */
  get lines(): string[] {
    return this.issues.map(issueLine);
  }

  add(path: string, code: IssueCode, message: string): void {
    this.push({ path, code, message });
  }

  /** A line that already names its path (from a nested checker), with the code of the rule it reports. */
  addLine(line: string, code: IssueCode): void {
    this.push(lineIssue(line, code));
  }

  private push(issue: Issue): void {
    const line = issueLine(issue);
    if (this.seen.has(line)) return;
    this.seen.add(line);
    this.issues.push(issue);
  }

  secret(path: string): void {
    this.secretRef = true;
    if (this.secretPaths.has(path)) return;
    this.secretPaths.add(path);
    this.add(path, "secret_ref_in_definition", `references a secret; a definition never holds secret references (${this.secretAdvice})`);
  }

  findings(): Findings {
    return { issues: this.issues, secretRef: this.secretRef };
  }
}
