// A run's live progress (GET /workflows/runs/workflows/{id}/events). Every
// status change of the run, a job or an action is an event its object keeps
// as `event:<seq>` in the same put as the record that changed, so the history
// a stream replays and the events it receives live share one order, and an
// object evicted mid-run loses none of them: a client that reconnects gets
// the history again, the terminal event included. The object's followers (its
// open streams) get the history, then each event once its put is kept, and
// each stream closes after the run's terminal event.
import { RpcTarget } from "cloudflare:workers";
import { errorValue, type ErrorValue } from "../../lib/errors";
import { FINISHED_STATUSES, type RunStatus } from "./record";

export type RunEventType = "run" | "job" | "action";

export interface RunEvent {
  type: RunEventType;
  /** The step's id in the definition (jobs and actions). */
  job_id?: string;
  /** The action's `stepId`, when it has one. */
  step_id?: string;
  status: string;
  /** ISO 8601, UTC. */
  at: string;
}

/** What a record write may change: the status of the storage key `key`, told as `event` when it differs from the kept one. */
export interface StatusChange {
  key: string;
  status: string;
  event: Pick<RunEvent, "type" | "job_id" | "step_id">;
}

/** How the route found the run's row: a row finished without the object (a cancel it has not heard of yet) still ends the stream. */
export interface RunRow {
  status: RunStatus;
  finished_at: string | null;
}

/**
 * The caller's hold on its stream. The object is not told when the Worker
 * cancels the stream it returned, but it is when the Worker lets go of this
 * (disposes it, or its request ends however it ends): the follower is gone
 * at once, its place under the cap free.
 */
class Subscription extends RpcTarget {
  constructor(private readonly end: () => void) {
    super();
  }

  [Symbol.dispose](): void {
    this.end();
  }
}

export type Following = { refused: ErrorValue } | { events: ReadableStream<Uint8Array>; subscription: Disposable };

/**
 * Event streams one run serves at once. Each holds a request open on the
 * object and its Worker; a client past the cap is refused rather than
 * letting one run's watchers crowd out its own walk.
 */
export const MAX_FOLLOWERS = 100;

const EVENT = "event:";
const keyOf = (seq: number) => EVENT + String(seq).padStart(10, "0");
const seqOf = (key: string) => Number(key.slice(EVENT.length));
const finished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);
const isTerminal = (event: RunEvent) => event.type === "run" && finished(event.status);

/** The object-to-Worker framing: one JSON text per line (the route frames each as a server-sent event). */
const encoder = new TextEncoder();
const line = (event: RunEvent) => encoder.encode(JSON.stringify(event) + "\n");

/** One open stream: live events that arrive while its history is read are held, then sent after it, each once. */
class Follower {
  private last = -1;
  private held: [number, RunEvent][] | undefined = [];

  constructor(private readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

  /** A live event; true once the stream has closed. */
  push(seq: number, event: RunEvent): boolean {
    if (this.held) {
      this.held.push([seq, event]);
      return false;
    }
    return this.send(seq, event);
  }

  /** The history was sent: what arrived meanwhile follows it. */
  release(): boolean {
    const held = this.held ?? [];
    this.held = undefined;
    return held.some(([seq, event]) => this.send(seq, event));
  }

  /** Ends the stream where it is (its caller let go of it). */
  close(): void {
    try {
      this.controller.close();
    } catch {
      // Already closed, or its reader cancelled it.
    }
  }

  /** Sends an event not sent yet; true once the stream has closed (after the run's terminal event, or a reader gone). */
  send(seq: number, event: RunEvent): boolean {
    if (seq <= this.last) return false;
    this.last = seq;
    try {
      this.controller.enqueue(line(event));
      if (isTerminal(event)) this.controller.close();
    } catch {
      // The reader went away between its cancel and this event.
      return true;
    }
    return isTerminal(event);
  }
}

export class RunEvents {
  /** Test seam: the cap, lowered so a test opens a few streams instead of a hundred. */
  maxFollowers = MAX_FOLLOWERS;
  /** The last sequence number taken; read from storage once per object life. */
  private last?: number;
  private loading?: Promise<void>;
  private readonly followers = new Set<Follower>();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number,
  ) {}

  /**
   * The event entries to write with `changes`: one per key whose kept status
   * differs. A finished run that changes status again was retried, and its
   * history starts afresh: the earlier attempt's events are deleted first.
   */
  async log(changes: StatusChange[]): Promise<[string, RunEvent][]> {
    if (!changes.length) return [];
    const before = await Promise.all(changes.map((c) => this.storage.get<{ status: string }>(c.key).then((kept) => kept?.status)));
    const changed = changes.filter((c, i) => before[i] !== c.status);
    if (!changed.length) return [];
    if (changes.some((c, i) => c.key === "state" && before[i] !== undefined && finished(before[i]!) && before[i] !== c.status)) await this.clear();
    if (this.last === undefined) await (this.loading ??= this.lastSeq());
    // No await from here on: two writes logged at once never take the same number.
    const at = new Date(this.now()).toISOString();
    return changed.map((c) => [keyOf(++this.last!), { ...c.event, status: c.status, at }]);
  }

  /** Hands events just kept to every open stream. */
  kept(entries: [string, RunEvent][]): void {
    for (const [key, event] of entries) {
      for (const follower of this.followers) if (follower.push(seqOf(key), event)) this.followers.delete(follower);
    }
  }

  /**
   * Opens a stream: the history first, then each event as it is kept,
   * closed after the run's terminal event. A row that finished without a
   * terminal event here (the object has not heard of a cancel yet) ends the
   * history with the row's status.
   */
  async follow(row: RunRow): Promise<Following> {
    const max = this.maxFollowers;
    if (this.followers.size >= max) {
      return {
        refused: errorValue("TOO_MANY_REQUESTS", `The run has ${max} event streams open, the most it serves at once; close one and try again`, {
          max_streams: max,
        }),
      };
    }
    let follower!: Follower;
    const events = new ReadableStream<Uint8Array>({
      start: (controller) => {
        follower = new Follower(controller);
        this.followers.add(follower);
      },
      cancel: () => void this.followers.delete(follower),
    });
    // Followed before the history is read: what is kept meanwhile is held, not lost.
    const history = await this.storage.list<RunEvent>({ prefix: EVENT });
    const subscription = new Subscription(() => {
      this.followers.delete(follower);
      follower.close();
    });
    const done = () => {
      this.followers.delete(follower);
      return { events, subscription };
    };
    for (const [key, event] of history) if (follower.send(seqOf(key), event)) return done();
    if (finished(row.status) && ![...history.values()].some(isTerminal)) {
      follower.send(Number.MAX_SAFE_INTEGER, { type: "run", status: row.status, at: row.finished_at ?? new Date(this.now()).toISOString() });
      return done();
    }
    if (follower.release()) return done();
    return { events, subscription };
  }

  /** Open streams (tests read the cap's bookkeeping here). */
  get following(): number {
    return this.followers.size;
  }

  private async lastSeq(): Promise<void> {
    const [last] = (await this.storage.list({ prefix: EVENT, reverse: true, limit: 1 })).keys();
    this.last ??= last === undefined ? 0 : seqOf(last);
  }

  /** Deletes every event kept (a retried run's history starts afresh); the numbers go on. The storage API takes at most 128 keys per delete. */
  async clear(): Promise<void> {
    const keys = [...(await this.storage.list({ prefix: EVENT })).keys()];
    for (let i = 0; i < keys.length; i += 128) await this.storage.delete(keys.slice(i, i + 128));
  }
}

/** The events of a stream the object opened, decoded (the Worker's side of the framing). */
export async function* decodeEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    buffer += chunk.value;
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      yield JSON.parse(buffer.slice(0, end)) as RunEvent;
      buffer = buffer.slice(end + 1);
    }
  }
}
