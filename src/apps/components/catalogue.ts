// The component catalogues the service knows by name. A provider declares
// one (`providers.<name>.components`); publish and render check widgets
// against it, and GET /apps/components lists them for hosts and their kits.
import { STANDARD_1 } from "./standard";

export interface ComponentDeclaration {
  description: string;
  config: Record<string, unknown>;
  state: Record<string, unknown>;
  handlers: Record<string, { payload: Record<string, unknown> }>;
}

export const CATALOGUES: Record<string, Record<string, ComponentDeclaration>> = {
  "standard/1": STANDARD_1,
};
