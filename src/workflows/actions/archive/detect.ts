// Which archive format bytes are, by their magic numbers.
export type ArchiveFormat = "zip" | "tar" | "tar.gz";

/** Enough bytes to see every magic number below (tar's sits at offset 257). */
export const SNIFF_BYTES = 512;

const startsWith = (head: Uint8Array, magic: number[], at = 0) => magic.every((b, i) => head[at + i] === b);

/**
 * zip: a local file header (PK\3\4) or the end record of an empty zip
 * (PK\5\6); gzip (1f 8b): taken as tar.gz, the one gzip format read; tar:
 * "ustar" at offset 257 (POSIX and GNU). Anything else: undefined (a
 * pre-POSIX tar needs `format: "tar"` said outright).
 */
export function detectFormat(head: Uint8Array): ArchiveFormat | undefined {
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return "zip";
  if (startsWith(head, [0x1f, 0x8b])) return "tar.gz";
  if (startsWith(head, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) return "tar";
  return undefined;
}
