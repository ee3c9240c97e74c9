// The smart-value evaluator: JSONata expressions and the smart values built
// from them, evaluated against explicit scopes under time, depth and size
// bounds (per evaluation, or drawn from a budget a caller shares), with
// `$`-directives from a registry a caller can extend. Free of workflow
// specifics: the app renderer shares it.
import { compileExpression, REFUSED_FUNCTIONS } from "./expression";
import { rootNames, variablesNamed } from "./roots";

export type { EvaluationLimits } from "./bounds";
export { DEFAULT_LIMITS, EvaluationBudget, MAX_ITEMS, MAX_VOLUME } from "./bounds";
export { SMART_VALUE_DIRECTIVES, smartValueDirectives } from "./directives";
export { PIPE_STEPS, valueAt, type PipeJoin, type PipeStep } from "./pipe";
export { DirectiveRegistry, type Directive, type DirectiveCheck, type DirectiveRun } from "./registry";
export { ExpressionError, ExpressionSyntaxError } from "./errors";
export { compileExpression, evaluateExpression, MAX_EXPRESSION_LENGTH, withFunctions, type CompiledExpression, type Scope } from "./expression";
export { isTruthy } from "./json";
export { expressionsIn, resolveSmartValue, type FoundExpression, type ResolveOptions } from "./resolve";
export type { SecretWatch } from "./secrets";

/** The scope keys an expression reads (`config`, `context`, `input`, `outputs`, ...; `$` / `$$` for the whole scope), in order; throws ExpressionSyntaxError. */
export function rootNamesOf(text: string): string[] {
  return rootNames(compileExpression(text).ast);
}

const REFUSED = new Set(Object.keys(REFUSED_FUNCTIONS));

/** Each built-in the expression names that an evaluation refuses, with its position and why; throws ExpressionSyntaxError. */
export function refusedFunctionsOf(text: string): { name: string; position: number; reason: string }[] {
  return variablesNamed(compileExpression(text).ast, REFUSED).map((use) => ({ ...use, reason: REFUSED_FUNCTIONS[use.name].reason }));
}
