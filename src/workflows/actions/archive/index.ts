// The archive actions of the catalog, each its own module.
import type { ActionFamily } from "../types";
import { archiveDecompress } from "./archive-decompress";
import { zipCompress } from "./zip-compress";
import { zipDecompress } from "./zip-decompress";

export const archiveActions: ActionFamily = { zipCompress, zipDecompress, archiveDecompress };
