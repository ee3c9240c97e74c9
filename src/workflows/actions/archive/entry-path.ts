// The one check every archive entry path passes, reading or writing: a
// relative path of plain segments. Anything that could climb out of a
// folder or mean something else on another system is refused, never
// repaired, so the action fails instead of writing a file under a name
// nobody asked for.
import { ApiError } from "../../../lib/errors";
import { MAX_PATH_LENGTH } from "./limits";

/** Longest segment: the file name a temp file may have. */
const MAX_SEGMENT_LENGTH = 255;

/** A path shown in a message or detail: control characters escaped (a run record cannot hold NUL), cut at 300 characters. */
export function shownPath(raw: string): string {
  const escaped = raw.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > 300 ? `${escaped.slice(0, 300)}…` : escaped;
}

export function unsafePath(raw: string, reason: string): ApiError {
  const entry = shownPath(raw);
  return new ApiError("UNPROCESSABLE_ENTITY", `Archive entry path "${entry}" is refused: ${reason}`, { entry, reason });
}

/**
 * The entry's path normalised (`./` segments and a trailing `/` dropped),
 * or a 422 naming the entry and why: empty, NUL or another control
 * character, a backslash, absolute, a drive letter, a `..` segment, an
 * empty segment, a segment over 255 characters or a path over 1024.
 */
export function entryPath(raw: string): string {
  if (raw.length > MAX_PATH_LENGTH) throw unsafePath(raw, `is longer than ${MAX_PATH_LENGTH} characters`);
  if (raw.includes("\u0000")) throw unsafePath(raw, "contains NUL");
  if (/[\u0001-\u001f\u007f]/.test(raw)) throw unsafePath(raw, "contains a control character");
  if (raw.includes("\\")) throw unsafePath(raw, "contains a backslash");
  if (raw.startsWith("/")) throw unsafePath(raw, "is absolute");
  if (/^[A-Za-z]:/.test(raw)) throw unsafePath(raw, "starts with a drive letter");
  const segments = raw
    .replace(/\/$/, "")
    .split("/")
    .filter((s) => s !== ".");
  if (!segments.length || (segments.length === 1 && segments[0] === "")) throw unsafePath(raw, "is empty");
  if (segments.includes("..")) throw unsafePath(raw, "has a .. segment");
  if (segments.includes("")) throw unsafePath(raw, "has an empty segment");
  if (segments.some((s) => s.length > MAX_SEGMENT_LENGTH)) throw unsafePath(raw, `has a segment longer than ${MAX_SEGMENT_LENGTH} characters`);
  return segments.join("/");
}

/** The last segment: the name the entry's temp file gets. */
export const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
