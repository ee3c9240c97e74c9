// The PDF actions through real runs: PDFs generated in the test with the same
// library (each page a width of its own, 200 + its number, and its number as
// text), uploaded as temp files through the REST API, results downloaded
// through it and read back.
import { PDFDocument, StandardFonts } from "@cantoo/pdf-lib";
import { describe, expect, it } from "vitest";
import { chunks } from "../../src/workflows/actions/pdf/chunk-pdf";
import { parseRange } from "../../src/workflows/actions/pdf/split-pdf";
import { createTenant, type TenantCreds } from "../support/api";
import { download, failed, succeeded, tempFileCount, upload } from "./temp-files-support";

async function pdf(pages: number, text = true): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = text ? await doc.embedFont(StandardFonts.Helvetica) : undefined;
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([200 + n, 300]);
    if (font) page.drawText(`Page ${n}`, { x: 20, y: 150, size: 18, font });
  }
  return doc.save();
}

/** The page widths of a PDF temp file, downloaded through REST: which source pages it holds, in order. */
async function pagesOf(t: TenantCreds, id: string): Promise<number[]> {
  const doc = await PDFDocument.load(await download(t, id));
  return doc.getPages().map((p) => Math.round(p.getWidth()) - 200);
}

describe("splitPdf, chunkPdf and mergePdf", () => {
  it("splits a generated PDF by ranges and merges the parts back into the whole, in order", async () => {
    const t = await createTenant();
    const source = await upload(t, "report.pdf", await pdf(5), "application/pdf");

    const split = await succeeded(t, "splitPdf", { tempFileId: source, ranges: ["1-2", "3", "4-5"] });
    expect(split.pages).toBe(5);
    expect(split.files.map((f: any) => [f.name, f.content_type, f.first_page, f.last_page])).toEqual([
      ["report-p1-2.pdf", "application/pdf", 1, 2],
      ["report-p3.pdf", "application/pdf", 3, 3],
      ["report-p4-5.pdf", "application/pdf", 4, 5],
    ]);
    expect(await Promise.all(split.files.map((f: any) => pagesOf(t, f.temp_file_id)))).toEqual([[1, 2], [3], [4, 5]]);

    const merged = await succeeded(t, "mergePdf", {
      tempFileIds: [split.files[2].temp_file_id, split.files[0].temp_file_id, split.files[1].temp_file_id],
      name: "again.pdf",
    });
    expect(merged).toMatchObject({ name: "again.pdf", content_type: "application/pdf", pages: 5 });
    expect(await pagesOf(t, merged.temp_file_id)).toEqual([4, 5, 1, 2, 3]);
    const bytes = await download(t, merged.temp_file_id);
    expect(merged.size).toBe(bytes.byteLength);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(5);
  });

  it("splits every page into its own file when no ranges are given", async () => {
    const t = await createTenant();
    const split = await succeeded(t, "splitPdf", { tempFileId: await upload(t, "three.PDF", await pdf(3), "application/pdf") });
    expect([split.pages, split.files.map((f: any) => f.name)]).toEqual([3, ["three-p1.pdf", "three-p2.pdf", "three-p3.pdf"]]);
    expect(await Promise.all(split.files.map((f: any) => pagesOf(t, f.temp_file_id)))).toEqual([[1], [2], [3]]);
  });

  it("chunks into files of pagesPerChunk pages, the last with what is left", async () => {
    const t = await createTenant();
    const result = await succeeded(t, "chunkPdf", { tempFileId: await upload(t, "seven.pdf", await pdf(7), "application/pdf"), pagesPerChunk: 3 });
    expect([result.pages, result.files.map((f: any) => [f.first_page, f.last_page])]).toEqual([
      7,
      [
        [1, 3],
        [4, 6],
        [7, 7],
      ],
    ]);
    expect(await Promise.all(result.files.map((f: any) => pagesOf(t, f.temp_file_id)))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });
});

describe("the PDF actions refuse", () => {
  it("a range outside the document or backwards, keeping nothing", async () => {
    const t = await createTenant();
    const id = await upload(t, "five.pdf", await pdf(5), "application/pdf");
    const past = await failed(t, "splitPdf", { tempFileId: id, ranges: ["1", "4-9"] });
    expect([past.code, past.message, past.details.field]).toEqual([
      "UNPROCESSABLE_ENTITY",
      "config.ranges[1]: range 4-9 passes the last page, 5",
      "config.ranges[1]",
    ]);
    const backwards = await failed(t, "splitPdf", { tempFileId: id, ranges: ["3-2"] });
    expect(backwards.message).toBe("config.ranges[0]: range 3-2 ends before it starts");
    expect(await tempFileCount(t)).toBe(1);
  });

  it("a PDF of more than 2000 pages, and a split into more than 1000 files", async () => {
    const t = await createTenant();
    const huge = await failed(t, "chunkPdf", { tempFileId: await upload(t, "huge.pdf", await pdf(2001, false)), pagesPerChunk: 100 });
    expect([huge.code, huge.details.limit, huge.details.max, huge.details.pages]).toEqual(["UNPROCESSABLE_ENTITY", "MAX_PDF_PAGES", 2000, 2001]);
    const wide = await failed(t, "splitPdf", { tempFileId: await upload(t, "wide.pdf", await pdf(1001, false)) });
    expect([wide.code, wide.details.limit, wide.details.max, wide.details.parts]).toEqual(["UNPROCESSABLE_ENTITY", "MAX_PDF_PARTS", 1000, 1001]);
    expect(await tempFileCount(t)).toBe(2);
  });

  it("a file that is not a PDF", async () => {
    const t = await createTenant();
    const id = await upload(t, "notes.pdf", new TextEncoder().encode("plain text, no PDF"));
    const error = await failed(t, "splitPdf", { tempFileId: id });
    expect([error.code, error.details.temp_file_id, error.message]).toEqual(["UNPROCESSABLE_ENTITY", id, expect.stringContaining("is not a readable PDF")]);
    const merge = await failed(t, "mergePdf", { tempFileIds: [await upload(t, "ok.pdf", await pdf(1)), id] });
    expect([merge.code, merge.details.temp_file_id]).toEqual(["UNPROCESSABLE_ENTITY", id]);
  });

  it("bad configs, with the path of each bad field", async () => {
    const t = await createTenant();
    const id = crypto.randomUUID();
    // Wrapped in $literal, so the save leaves them to the run: a literal config its schema refuses is refused at save.
    const merge = await failed(t, "mergePdf", { $literal: { tempFileIds: [id] } });
    expect(merge.details.errors).toEqual([expect.stringMatching(/^config\.tempFileIds: /)]);
    const chunk = await failed(t, "chunkPdf", { $literal: { tempFileId: id, pagesPerChunk: 0 } });
    expect(chunk.details.errors).toEqual([expect.stringMatching(/^config\.pagesPerChunk: /)]);
    const split = await failed(t, "splitPdf", { $literal: { tempFileId: 12, ranges: ["1-", "x"] } });
    expect(split.details.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^config\.tempFileId: /),
        expect.stringMatching(/^config\.ranges\[0\]: /),
        expect.stringMatching(/^config\.ranges\[1\]: /),
      ]),
    );
    expect([merge.code, chunk.code, split.code]).toEqual(["VALIDATION_FAILED", "VALIDATION_FAILED", "VALIDATION_FAILED"]);
  });

  it("an unknown temp file and another tenant's with 404, and a policy without entity:create with 403", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await upload(other, "theirs.pdf", await pdf(2), "application/pdf");
    const mine = await upload(t, "mine.pdf", await pdf(2), "application/pdf");
    for (const tempFileId of [crypto.randomUUID(), theirs]) {
      const split = await failed(t, "splitPdf", { tempFileId });
      expect([split.status, split.code]).toEqual([404, "NOT_FOUND"]);
      const merge = await failed(t, "mergePdf", { tempFileIds: [mine, tempFileId] });
      expect([merge.status, merge.code]).toEqual([404, "NOT_FOUND"]);
    }
    const forbidden = await failed(t, "chunkPdf", { tempFileId: mine, pagesPerChunk: 1 }, ["entity:read"]);
    expect([forbidden.status, forbidden.code, forbidden.details]).toEqual([403, "FORBIDDEN", { resource: "entity", action: "create" }]);
    expect(await tempFileCount(t)).toBe(1);
  });
});

describe("page ranges", () => {
  it("parseRange reads N and N-M within the document", () => {
    expect([parseRange("2", 0, 5), parseRange("1-5", 1, 5), parseRange("4-4", 2, 5)]).toEqual([
      { first: 2, last: 2 },
      { first: 1, last: 5 },
      { first: 4, last: 4 },
    ]);
    expect(() => parseRange("6", 3, 5)).toThrow("config.ranges[3]: range 6 passes the last page, 5");
  });

  it("chunks covers every page once, in order", () => {
    expect(chunks(5, 2)).toEqual([
      { first: 1, last: 2 },
      { first: 3, last: 4 },
      { first: 5, last: 5 },
    ]);
    expect(chunks(4, 4)).toEqual([{ first: 1, last: 4 }]);
    expect(chunks(3, 10)).toEqual([{ first: 1, last: 3 }]);
  });
});
