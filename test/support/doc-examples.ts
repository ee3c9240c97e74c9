// The app spec examples of a markdown page, as the tests that run them read
// them (docs/apps.md, "A complete example", says how blocks are marked): a
// block whose info string is `json spec` holds a whole spec document (or a
// `POST /definition/specs` body with one); `sh spec` posts one with curl, its
// body the single-quoted `-d` argument after `/definition/specs`; `json
// fragment` is part of a document and is not run. A `json` block marked
// neither is refused, so a new example cannot slip past the tests unmarked.

export interface DocExample {
  /** Where the block is: the file, its line, the heading above it. */
  where: string;
  heading: string;
  document: Record<string, unknown>;
}

const FENCE = /^```([^\n]*)\n([\s\S]*?)\n```$/gm;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The spec document a `POST /definition/specs` body or a bare document holds. */
function documentOf(value: unknown, where: string): Record<string, unknown> {
  const document = isObject(value) && isObject(value.spec_document) ? value.spec_document : value;
  if (!isObject(document) || !isObject(document.dashboards)) throw new Error(`${where}: a spec block holds no spec document (no dashboards)`);
  return document;
}

/** The body a curl command posts to /definition/specs: the single-quoted argument of its `-d`. */
function curlBody(script: string, where: string): unknown {
  const at = script.indexOf("/definition/specs");
  const body = at < 0 ? null : /-d '([^']*)'/.exec(script.slice(at));
  if (!body) throw new Error(`${where}: a sh spec block posts no -d '<body>' to /definition/specs`);
  return JSON.parse(body[1]);
}

/** Every spec example of `markdown` (named `file` in messages), in page order. */
export function specExamples(file: string, markdown: string): DocExample[] {
  const examples: DocExample[] = [];
  for (const match of markdown.matchAll(FENCE)) {
    const [lang, ...marks] = match[1].trim().split(/\s+/);
    const line = markdown.slice(0, match.index).split("\n").length;
    const where = `${file}:${line}`;
    const headings = [...markdown.slice(0, match.index).matchAll(/^#+ (.*)$/gm)];
    const heading = headings.length ? headings[headings.length - 1][1] : "";
    const mark = marks.join(" ");
    if (lang === "json" && mark !== "spec" && mark !== "fragment") throw new Error(`${where}: a json block is marked neither spec nor fragment`);
    if (mark !== "spec") continue;
    const text = match[2];
    if (lang === "json") examples.push({ where, heading, document: documentOf(JSON.parse(text), where) });
    else if (lang === "sh") examples.push({ where, heading, document: documentOf(curlBody(text, where), where) });
    else throw new Error(`${where}: a ${lang} block cannot be a spec example`);
  }
  return examples;
}
