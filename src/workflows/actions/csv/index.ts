// The csv actions of the catalog, each its own module.
import type { ActionFamily } from "../types";

export const csvActions: ActionFamily = {};
