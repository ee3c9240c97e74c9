// The content type an extracted entry's temp file records, from its name's
// extension: archives carry no types, and a type lets later actions (CSV,
// PDF, downloads) treat the file right. Unknown: application/octet-stream.
const BY_EXTENSION: Record<string, string> = {
  csv: "text/csv",
  gz: "application/gzip",
  htm: "text/html",
  html: "text/html",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  json: "application/json",
  md: "text/markdown",
  pdf: "application/pdf",
  png: "image/png",
  svg: "image/svg+xml",
  tar: "application/x-tar",
  tsv: "text/tab-separated-values",
  txt: "text/plain",
  xml: "application/xml",
  zip: "application/zip",
};

export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot > 0 && BY_EXTENSION[name.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}
