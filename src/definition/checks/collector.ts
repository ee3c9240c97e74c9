// What every save-time check shares: the problem lines of one document
// (`<path>: <reason>`, each once) and the defensive reading of a document
// whose shape the schema layer may already have refused.
export type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** At most `max` items: a longer array is already refused by the schema, and the work stays bounded. */
export const items = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : []);
export const has = (o: Obj, key: string) => Object.hasOwn(o, key) && o[key] !== undefined;

/** `.key` for identifiers, `["key"]` for anything else (spaces, dots, NUL). */
export function child(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** What the checks of one document found. */
export interface Findings {
  problems: string[];
  /** True when a problem is a secret reference. */
  secretRef: boolean;
}

/** The problem lines found so far, and whether one is a secret reference. */
export class Collector {
  readonly lines: string[] = [];
  secretRef = false;
  private readonly secretPaths = new Set<string>();

  add(path: string, reason: string): void {
    const line = `${path}: ${reason}`;
    if (!this.lines.includes(line)) this.lines.push(line);
  }

  /** A line that already names its path (from a nested checker). */
  addLine(line: string): void {
    if (!this.lines.includes(line)) this.lines.push(line);
  }

  secret(path: string): void {
    this.secretRef = true;
    if (this.secretPaths.has(path)) return;
    this.secretPaths.add(path);
    this.add(path, "references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})");
  }

  findings(): Findings {
    return { problems: this.lines, secretRef: this.secretRef };
  }
}
