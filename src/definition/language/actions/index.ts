// What the language says of each action: its name and the JSON Schema of its
// config. Publish holds a literal config to it (checks/workflow.ts) as the
// action holds its resolved config when it runs: the engine's module for the
// name (workflows/actions/) is written from the same declaration, and the
// config type its `execute` reads is derived from this schema, so the check
// at publish and the one at run time cannot drift apart.
import type { ActionName } from "../workflow-schema";
import { archiveDeclarations } from "./archive";
import { coreDeclarations } from "./core";
import { csvDeclarations } from "./csv";
import type { ActionDeclaration } from "./declare";
import { entityDeclarations } from "./entity";
import { fileDeclarations } from "./files";
import { outboundDeclarations } from "./outbound";
import { pdfDeclarations } from "./pdf";

/** Every action name of the language, declared once. */
export const ACTION_DECLARATIONS: Readonly<Record<ActionName, ActionDeclaration>> = {
  ...coreDeclarations,
  ...outboundDeclarations,
  ...entityDeclarations,
  ...fileDeclarations,
  ...archiveDeclarations,
  ...pdfDeclarations,
  ...csvDeclarations,
};
