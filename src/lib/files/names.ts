// The file names the service records and sends back (temp files, app
// uploads): what a name may not carry, wherever it came from.

/**
 * Unicode format characters: zero-width marks (U+200B-U+200F), bidi
 * embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069) and
 * the BOM. They are invisible, so a name holding one reads as another:
 * `invoice\u202Efdp.exe` shows as `invoiceexe.pdf` wherever it is displayed.
 */
const FORMAT_CHARACTERS = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * The name without format characters. Control characters are not this
 * function's: a caller naming a file is refused them (fileNameSchema), the
 * app upload route drops them from the name a browser sends.
 */
export function recordedFileName(name: string): string {
  return name.replace(FORMAT_CHARACTERS, "");
}
