// GraphQL names for what tenants name freely. Attribute keys and rule names
// may hold any character, and entity type names (already valid GraphQL
// names) may clash with the schema's own types, so every generated name is
// claimed in a namespace that hands out each name once.

/** `raw` as a GraphQL name: other characters become `_`; a leading digit, or a leading `__` (reserved for introspection), gets an `f` in front. */
export function graphqlName(raw: string): string {
  const name = raw.replace(/[^_0-9A-Za-z]/g, "_");
  return name === "" || /^[0-9]/.test(name) || name.startsWith("__") ? `f${name}` : name;
}

export class Namespace {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string>) {
    this.taken = new Set(reserved);
  }

  /** `wanted` when free, else `prefix` + `wanted`, else that with `_2`, `_3`, ... appended. */
  claim(wanted: string, prefix = ""): string {
    let name = wanted;
    if (this.taken.has(name)) name = `${prefix}${wanted}`;
    for (let i = 2; this.taken.has(name); i++) name = `${prefix}${wanted}_${i}`;
    this.taken.add(name);
    return name;
  }
}
