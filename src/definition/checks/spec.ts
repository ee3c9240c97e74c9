// The publish checks of an app spec document: the layers every document
// kind shares, with the spec's JSON Schema and its semantic checks (the
// spec-*.ts modules, one per concern). Issue paths are dotted from the
// document root (`dashboards.main.pages.home.layout[0][1]`).
import { capLines } from "../../lib/validate";
import { CONFIG_SCOPES, SPEC_DOCUMENT_SCHEMA, type SpecDocument } from "../language/spec-schema";
import { LIMITS } from "../language/workflow-schema";
import { checkRootProfiles } from "./auth-profiles";
import { child, Collector, issueLine, type Findings, type Issue, type IssueCode, type Obj } from "./collector";
import { Expressions } from "./expressions";
import { rootProfileScope } from "./kinds";
import { documentProblems, refused, refusedLines, type DocumentProblems } from "./layers";
import { secretTexts } from "./secrets";
import { checkJobs } from "./spec-commands";
import { checkFunctions, checkMessages } from "./spec-functions";
import { checkDashboards, checkLevel } from "./spec-layout";
import { mapOf, SpecNames, type SpecChecks } from "./spec-names";
import { checkProviders } from "./spec-providers";
import { checkDefinitions, declaredCatalogues } from "./spec-components";
import { configChecked } from "./workflow";
import { isObject } from "../../lib/is-object";

export type SpecProblems = DocumentProblems<SpecDocument>;

const SCOPES: readonly string[] = CONFIG_SCOPES;
/**
 * Rules that restate what the schema layer also refuses at the same path
 * (a missing `dashboards`, a config scope outside the set): their issue
 * tells the problem better, so the schema's line there is dropped.
 */
const RESTATED = new Set<IssueCode>(["required", "scan_card_shape", "unknown_config_scope", "auth_profile_invalid"]);

function checkScopes(checks: SpecChecks, doc: Obj): void {
  for (const field of ["config", "configSchemas"]) {
    for (const scope of Object.keys(mapOf(doc, field))) {
      if (!SCOPES.includes(scope)) checks.found.add(child(field, scope), "unknown_config_scope", `is not a config scope (scopes: ${SCOPES.join(", ")})`);
    }
  }
}

function checkPolicies(checks: SpecChecks, doc: Obj): void {
  if (typeof doc.defaultPolicy !== "string") return;
  const policies = mapOf(doc, "policies");
  if (Object.hasOwn(policies, doc.defaultPolicy)) return;
  const keys = Object.keys(policies);
  checks.found.add(
    "defaultPolicy",
    "default_policy_unknown",
    `names ${JSON.stringify(doc.defaultPolicy)}, which is not a key of policies (${keys.length ? `keys: ${keys.slice(0, 20).join(", ")}` : "the spec declares none"})`,
  );
}

/** The semantic problems of a spec document, given the schema layer's lines. */
function specFindings(doc: Obj, schemaLines: string[]): Findings {
  const found = new Collector("keep the reference in app, integration or principal config and read it as {{ config.<scope>.NAME }}");
  const expressions = new Expressions(found);
  const declared = checkRootProfiles(found, doc.auth, "auth", rootProfileScope("app"), LIMITS.profiles, expressions);
  const providers = mapOf(doc, "providers");
  const checks: SpecChecks = {
    found,
    expressions,
    names: new SpecNames(doc),
    declared,
    jobs: mapOf(doc, "jobs"),
    configLines: [],
    components: declaredCatalogues(providers),
  };
  checkScopes(checks, doc);
  checkPolicies(checks, doc);
  checkProviders(checks, providers, "providers");
  checkDefinitions(found, providers);
  checkJobs(checks, checks.jobs, "jobs");
  checkFunctions(checks, mapOf(doc, "functions"), "functions");
  checkMessages(checks, mapOf(doc, "messages"), "messages");
  checkDashboards(checks, doc);
  checkLevel(checks, checks.names.spec, "", undefined);
  expressions.smartValue(doc.defaultDashboard, "defaultDashboard");
  expressions.check();
  configChecked(found, checks.configLines, schemaLines);
  secretTexts(found, doc, "");
  return found.findings();
}

/** The issues with each schema issue a restating rule names at the same path left out, and the lines again. */
function restated(result: SpecProblems): SpecProblems {
  const named = new Set(result.issues.filter((issue) => RESTATED.has(issue.code)).map((issue) => issue.path));
  if (!named.size) return result;
  const issues: Issue[] = result.issues.filter((issue) => issue.code !== "schema_violation" || !named.has(issue.path));
  return { ...result, issues, problems: capLines(issues.map(issueLine)) };
}

/** Every problem of a spec document at once; nothing thrown. */
export function specProblems(value: unknown): SpecProblems {
  if (!isObject(value)) return refusedLines(["(root): must be an object"], "schema_violation");
  return restated(documentProblems<SpecDocument>(value, SPEC_DOCUMENT_SCHEMA, specFindings, ""));
}

/** The checked document, or the 422 naming every problem. */
export function checkSpecDocument(value: unknown): SpecDocument {
  const result = specProblems(value);
  if (result.problems.length || !result.definition) throw refused(result, "spec document", "app");
  return result.definition;
}
