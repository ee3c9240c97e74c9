// The outbound actions of the catalog, each its own module.
import type { ActionFamily } from "../types";
import { http } from "./http";
import { httpCallback } from "./http-callback";
import { llmCallback } from "./llm-callback";

export const outboundActions: ActionFamily = { http, httpCallback, llmCallback };
