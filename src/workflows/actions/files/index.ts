// The files actions of the catalog, each its own module: artifacts on
// entities and temp files, through the services their REST routes use.
import type { ActionFamily } from "../types";
import { createArtifactDownloadURL } from "./create-artifact-download-url";
import { createTempFileDownloadURL } from "./create-temp-file-download-url";
import { downloadArtifact } from "./download-artifact";
import { downloadTempFile } from "./download-temp-file";
import { listEntityArtifacts } from "./list-entity-artifacts";
import { uploadArtifact } from "./upload-artifact";
import { uploadTempFile } from "./upload-temp-file";

export const fileActions: ActionFamily = {
  uploadArtifact,
  downloadArtifact,
  listEntityArtifacts,
  createArtifactDownloadURL,
  uploadTempFile,
  downloadTempFile,
  createTempFileDownloadURL,
};
