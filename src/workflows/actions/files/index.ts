// The files actions of the catalog, each its own module.
import type { ActionFamily } from "../types";

export const fileActions: ActionFamily = {};
