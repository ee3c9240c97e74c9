// The archive actions through real runs: inputs made in the test and uploaded
// as temp files through the REST API, results downloaded through it and
// compared byte for byte. The pure helpers (path check, format detection)
// are tested directly.
import { gzipSync, strToU8, unzipSync, zipSync } from "fflate";
import { packTar } from "modern-tar";
import { describe, expect, it } from "vitest";
import { contentTypeOf } from "../../src/workflows/actions/archive/content-type";
import { detectFormat } from "../../src/workflows/actions/archive/detect";
import { entryPath } from "../../src/workflows/actions/archive/entry-path";
import { createTenant } from "../support/api";
import { firstDifference, MiB, randomData } from "../entity/files-support";
import { download, failed, succeeded, tempFileCount, upload } from "./temp-files-support";

const text = (s: string) => strToU8(s);

/** Each extracted file's path and bytes, downloaded through REST. */
async function contents(t: Awaited<ReturnType<typeof createTenant>>, files: { path: string; temp_file_id: string }[]) {
  return Promise.all(files.map(async (f) => [f.path, await download(t, f.temp_file_id)] as const));
}

function expectSameFiles(actual: (readonly [string, Uint8Array])[], expected: Record<string, Uint8Array>) {
  expect(actual.map(([p]) => p)).toEqual(Object.keys(expected));
  for (const [path, bytes] of actual) expect(firstDifference(bytes, expected[path]), path).toBe(-1);
}

describe("zipCompress and zipDecompress", () => {
  it("round-trip files byte for byte: the zip holds them under their paths and unzips to new temp files", async () => {
    const t = await createTenant();
    const originals: Record<string, Uint8Array> = {
      "hello.txt": text("hello, archive\n"),
      "bin/data.bin": randomData(1.2 * MiB),
      "docs/empty.md": new Uint8Array(0),
    };
    const ids = [
      await upload(t, "hello.txt", originals["hello.txt"], "text/plain"),
      await upload(t, "x.bin", originals["bin/data.bin"]),
      await upload(t, "e", originals["docs/empty.md"]),
    ];

    const zip = await succeeded(t, "zipCompress", {
      files: [{ tempFileId: ids[0] }, { tempFileId: ids[1], path: "bin/data.bin" }, { tempFileId: ids[2], path: "./docs/empty.md" }],
      name: "bundle.zip",
    });
    expect(zip).toMatchObject({ name: "bundle.zip", content_type: "application/zip", temp_file_id: expect.any(String), expires_at: expect.any(String) });
    const zipBytes = await download(t, zip.temp_file_id);
    expect(zip.size).toBe(zipBytes.byteLength);
    const unzipped = unzipSync(zipBytes);
    expect(Object.keys(unzipped)).toEqual(Object.keys(originals));
    for (const [path, bytes] of Object.entries(unzipped)) expect(firstDifference(bytes, originals[path]), path).toBe(-1);

    const { files } = await succeeded(t, "zipDecompress", { tempFileId: zip.temp_file_id });
    expect(files.map((f: any) => [f.path, f.name, f.content_type, f.size])).toEqual([
      ["hello.txt", "hello.txt", "text/plain", 15],
      ["bin/data.bin", "data.bin", "application/octet-stream", originals["bin/data.bin"].byteLength],
      ["docs/empty.md", "empty.md", "text/markdown", 0],
    ]);
    expectSameFiles(await contents(t, files), originals);
  });

  it("extracts only the files under the `include` prefixes and skips directory entries", async () => {
    const t = await createTenant();
    const zip = zipSync({
      "a/": new Uint8Array(0),
      "a/one.csv": text("x,y\n1,2\n"),
      "ab.txt": text("not under a/"),
      "b/two.json": text("{}"),
      "c.txt": text("c"),
    });
    const { files } = await succeeded(t, "zipDecompress", { tempFileId: await upload(t, "in.zip", zip), include: ["a", "b/two.json"] });
    expect(files.map((f: any) => [f.path, f.content_type])).toEqual([
      ["a/one.csv", "text/csv"],
      ["b/two.json", "application/json"],
    ]);
    expectSameFiles(await contents(t, files), { "a/one.csv": text("x,y\n1,2\n"), "b/two.json": text("{}") });
  });

  it("refuses a zip bomb while inflating: an entry over 25 MiB, and nothing is kept", async () => {
    const t = await createTenant();
    const bomb = zipSync({ "first.txt": text("kept until the bomb"), "zeros.bin": new Uint8Array(25 * MiB + 1) }, { level: 9 });
    expect(bomb.byteLength).toBeLessThan(100_000);
    const id = await upload(t, "bomb.zip", bomb);
    const error = await failed(t, "zipDecompress", { tempFileId: id });
    expect([error.status, error.code, error.details.limit, error.details.max, error.details.entry]).toEqual([
      422,
      "UNPROCESSABLE_ENTITY",
      "MAX_ENTRY_BYTES",
      25 * MiB,
      "zeros.bin",
    ]);
    expect(await tempFileCount(t)).toBe(1);
  });

  it("refuses entries that inflate past 100 MiB together, skipped ones included", async () => {
    const t = await createTenant();
    const zeros = new Uint8Array(20 * MiB);
    const zip = zipSync(Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`z${i}.bin`, zeros])), { level: 9 });
    const error = await failed(t, "zipDecompress", { tempFileId: await upload(t, "many.zip", zip), include: ["none"] });
    expect([error.code, error.details.limit, error.details.max, error.details.entry]).toEqual(["UNPROCESSABLE_ENTITY", "MAX_TOTAL_BYTES", 100 * MiB, "z6.bin"]);
  });

  it("refuses a path-traversal entry and removes the files already extracted", async () => {
    const t = await createTenant();
    for (const bad of ["../x", "a/../../x", "/etc/passwd", "a\\..\\x"]) {
      const zip = zipSync({ "ok.txt": text("fine"), [bad]: text("evil") });
      const error = await failed(t, "zipDecompress", { tempFileId: await upload(t, "evil.zip", zip) });
      expect([error.code, error.details.entry], bad).toEqual(["UNPROCESSABLE_ENTITY", bad]);
    }
    expect(await tempFileCount(t)).toBe(4);
  });

  it("refuses an archive of more than 1000 entries", async () => {
    const t = await createTenant();
    const zip = zipSync(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.txt`, text(String(i))])));
    // Left out by `include`, the entries are still counted, and the run makes no temp file per entry.
    const error = await failed(t, "zipDecompress", { tempFileId: await upload(t, "wide.zip", zip), include: ["none"] });
    expect([error.code, error.details.limit, error.details.max]).toEqual(["UNPROCESSABLE_ENTITY", "MAX_ARCHIVE_ENTRIES", 1000]);
  });

  it("refuses a file that is not a zip, and a zip whose bytes are cut short", async () => {
    const t = await createTenant();
    const notZip = await failed(t, "zipDecompress", { tempFileId: await upload(t, "a.txt", text("just text")) });
    expect([notZip.code, notZip.message]).toEqual(["UNPROCESSABLE_ENTITY", expect.stringContaining("is not a zip archive")]);
    const whole = zipSync({ "r.bin": randomData(50_000) }, { level: 0 });
    const cut = await failed(t, "zipDecompress", { tempFileId: await upload(t, "cut.zip", whole.subarray(0, 20_000)) });
    expect([cut.code, cut.details.format]).toEqual(["UNPROCESSABLE_ENTITY", "zip"]);
  });

  it("zipCompress refuses an unsafe path and two files under one path", async () => {
    const t = await createTenant();
    const id = await upload(t, "a.txt", text("a"));
    const traversal = await failed(t, "zipCompress", { files: [{ tempFileId: id, path: "../a.txt" }] });
    expect([traversal.code, traversal.details.entry, traversal.details.reason]).toEqual(["UNPROCESSABLE_ENTITY", "../a.txt", "has a .. segment"]);
    const twice = await failed(t, "zipCompress", { files: [{ tempFileId: id }, { tempFileId: id, path: "a.txt" }] });
    expect([twice.code, twice.details.entry]).toEqual(["UNPROCESSABLE_ENTITY", "a.txt"]);
    expect(await tempFileCount(t)).toBe(1);
  });
});

describe("archiveDecompress", () => {
  const originals: Record<string, Uint8Array> = { "top.txt": text("top\n"), "dir/data.bin": randomData(300_000), "dir/sub/empty": new Uint8Array(0) };
  const tar = () =>
    packTar([
      { header: { name: "top.txt", size: 4 }, body: originals["top.txt"] },
      { header: { name: "dir/", type: "directory", size: 0 } },
      { header: { name: "dir/data.bin", size: 300_000 }, body: originals["dir/data.bin"] },
      { header: { name: "dir/sub/empty", size: 0 }, body: new Uint8Array(0) },
    ]);

  it("round-trips a tar.gz byte for byte, the format found from its bytes", async () => {
    const t = await createTenant();
    const { files } = await succeeded(t, "archiveDecompress", { tempFileId: await upload(t, "bundle.tgz", gzipSync(await tar())) });
    expect(files.map((f: any) => [f.path, f.name, f.size])).toEqual([
      ["top.txt", "top.txt", 4],
      ["dir/data.bin", "data.bin", 300_000],
      ["dir/sub/empty", "empty", 0],
    ]);
    expectSameFiles(await contents(t, files), originals);
  });

  it("reads a plain tar and a zip by their magic numbers, and a named format as said", async () => {
    const t = await createTenant();
    const plain = await succeeded(t, "archiveDecompress", { tempFileId: await upload(t, "b.tar", await tar()) });
    expectSameFiles(await contents(t, plain.files), originals);
    const zip = await succeeded(t, "archiveDecompress", { tempFileId: await upload(t, "b.bin", zipSync({ "z.txt": text("z") })), format: "zip" });
    expectSameFiles(await contents(t, zip.files), { "z.txt": text("z") });
    const asZip = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "c.tar", await tar()), format: "zip" });
    expect([asZip.code, asZip.details.format]).toEqual(["UNPROCESSABLE_ENTITY", "zip"]);
    const unknown = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "d.txt", text("plain words")) });
    expect([unknown.code, unknown.details.format]).toEqual(["UNPROCESSABLE_ENTITY", "zip, tar or tar.gz"]);
  });

  it("refuses symlink entries, traversal entries and a broken gzip stream, keeping nothing", async () => {
    const t = await createTenant();
    const link = await packTar([
      { header: { name: "a.txt", size: 1 }, body: text("a") },
      { header: { name: "link", type: "symlink", linkname: "/etc/passwd", size: 0 } },
    ]);
    const linked = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "l.tar", link) });
    expect([linked.code, linked.details.entry, linked.details.kind]).toEqual(["UNPROCESSABLE_ENTITY", "link", "link"]);
    const evil = await packTar([{ header: { name: "../../escape.txt", size: 1 }, body: text("x") }]);
    const traversal = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "e.tar.gz", gzipSync(evil)) });
    expect([traversal.code, traversal.details.entry]).toEqual(["UNPROCESSABLE_ENTITY", "../../escape.txt"]);
    const gz = gzipSync(await tar());
    const broken = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "b.tgz", gz.subarray(0, gz.byteLength - 200)) });
    expect([broken.code, broken.details.format]).toEqual(["UNPROCESSABLE_ENTITY", "tar.gz"]);
    expect(await tempFileCount(t)).toBe(3);
  });

  it("refuses a tar.gz entry that inflates past 25 MiB", async () => {
    const t = await createTenant();
    const big = await packTar([{ header: { name: "zeros", size: 25 * MiB + 1 }, body: new Uint8Array(25 * MiB + 1) }]);
    const error = await failed(t, "archiveDecompress", { tempFileId: await upload(t, "z.tgz", gzipSync(big, { level: 9 })) });
    expect([error.code, error.details.limit, error.details.entry]).toEqual(["UNPROCESSABLE_ENTITY", "MAX_ENTRY_BYTES", "zeros"]);
    expect(await tempFileCount(t)).toBe(1);
  });
});

describe("the archive actions refuse", () => {
  it("bad configs, with the path of each bad field", async () => {
    const t = await createTenant();
    // Wrapped in $literal, so the save leaves them to the run: a literal config its schema refuses is refused at save.
    const compress = await failed(t, "zipCompress", { $literal: { files: [], name: 7, level: 9 } });
    expect([compress.code, compress.details.errors]).toEqual([
      "VALIDATION_FAILED",
      expect.arrayContaining([expect.stringMatching(/^config\.files: /), expect.stringMatching(/^config\.name: /), "config.level: is not allowed"]),
    ]);
    const decompress = await failed(t, "archiveDecompress", { $literal: { tempFileId: "nope", format: "rar", include: "a/" } });
    expect(decompress.details.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config\.tempFileId: /),
        expect.stringMatching(/^config\.format: /),
        expect.stringMatching(/^config\.include: /),
      ]),
    );
    const missing = await failed(t, "zipDecompress", { $literal: {} });
    expect(missing.details.errors).toEqual([expect.stringMatching(/^config\.tempFileId: /)]);
  });

  it("an unknown temp file and another tenant's with 404", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await upload(other, "o.zip", zipSync({ "o.txt": text("o") }));
    for (const tempFileId of [crypto.randomUUID(), theirs]) {
      const error = await failed(t, "zipDecompress", { tempFileId });
      expect([error.status, error.code]).toEqual([404, "NOT_FOUND"]);
      const compress = await failed(t, "zipCompress", { files: [{ tempFileId }] });
      expect([compress.status, compress.code]).toEqual([404, "NOT_FOUND"]);
    }
  });

  it("a run whose policy may not make temp files, with 403", async () => {
    const t = await createTenant();
    const id = await upload(t, "in.zip", zipSync({ "a.txt": text("a") }));
    const error = await failed(t, "zipDecompress", { tempFileId: id }, ["entity:read"]);
    expect([error.status, error.code, error.details]).toEqual([403, "FORBIDDEN", { resource: "entity", action: "create" }]);
    expect(await tempFileCount(t)).toBe(1);
  });
});

describe("entryPath", () => {
  it("keeps plain relative paths, dropping ./ segments and a trailing slash", () => {
    expect(["a.txt", "dir/b.csv", "./c/d", "e/./f", "dir/", "ünï cödé/ñ.txt", "..a/b..", "a/.hidden"].map(entryPath)).toEqual([
      "a.txt",
      "dir/b.csv",
      "c/d",
      "e/f",
      "dir",
      "ünï cödé/ñ.txt",
      "..a/b..",
      "a/.hidden",
    ]);
  });

  it("refuses each unsafe shape with its reason", () => {
    const reason = (p: string) => {
      try {
        entryPath(p);
        return "accepted";
      } catch (e: any) {
        return e.details.reason;
      }
    };
    expect(
      ["../x", "a/../../x", "a/..", "/abs", "a\\b", "a\u0000b", "a\nb", "C:/x", "", "./", "a//b", "x".repeat(256), `${"a/".repeat(600)}b`].map(reason),
    ).toEqual([
      "has a .. segment",
      "has a .. segment",
      "has a .. segment",
      "is absolute",
      "contains a backslash",
      "contains NUL",
      "contains a control character",
      "starts with a drive letter",
      "is empty",
      "is empty",
      "has an empty segment",
      "has a segment longer than 255 characters",
      "is longer than 1024 characters",
    ]);
  });

  it("shows a NUL escaped in the error, so a run record can hold it", () => {
    expect(() => entryPath("a\u0000b")).toThrow('Archive entry path "a\\u0000b" is refused: contains NUL');
  });
});

describe("detectFormat and contentTypeOf", () => {
  it("tells zip, gzip and tar apart by magic numbers and knows nothing else", async () => {
    const tarHead = (await packTar([{ header: { name: "a", size: 1 }, body: text("a") }])).subarray(0, 512);
    expect([zipSync({ a: text("a") }), zipSync({}), gzipSync(text("a")), tarHead, text("PK"), text("%PDF-1.7"), new Uint8Array(0)].map(detectFormat)).toEqual([
      "zip",
      "zip",
      "tar.gz",
      "tar",
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("types an entry by its extension", () => {
    expect(["a.CSV", "b.pdf", "c", ".json", "d.weird"].map(contentTypeOf)).toEqual([
      "text/csv",
      "application/pdf",
      "application/octet-stream",
      "application/octet-stream",
      "application/octet-stream",
    ]);
  });
});
