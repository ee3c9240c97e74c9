// The one source of the current time. Whatever decides by time (rate windows,
// expiry, back-off, alarms) takes a Clock, so a test sets the time it needs
// instead of sleeping until it comes.

export interface Clock {
  /** Milliseconds since the Unix epoch, as `Date.now()`. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
