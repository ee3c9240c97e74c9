// Relationship fields load per level, not per parent. graphql-js resolves the
// items of a list in one synchronous pass, and every continuation of a level
// runs before the next macrotask, so the calls that one field of the document
// makes for all its parents join one batch, run once, after a zero timer.
// The batch is keyed by the field's node in the document: the node fixes the
// arguments, so every member of a batch asks the same question.

interface Batch {
  ids: Set<string>;
  result: Promise<Map<string, unknown[]>>;
}

export class Batches {
  private readonly open = new Map<object, Batch>();

  /** The rows `run` answers for `id`; `run` is called once per batch, with every id the batch collected. */
  load<T>(key: object, id: string, run: (ids: string[]) => Promise<Map<string, T[]>>): Promise<T[]> {
    let batch = this.open.get(key);
    if (!batch) {
      const ids = new Set<string>();
      const result = new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        this.open.delete(key);
        return run([...ids]);
      });
      batch = { ids, result };
      this.open.set(key, batch);
    }
    batch.ids.add(id);
    return batch.result.then((rows) => (rows.get(id) ?? []) as T[]);
  }
}
