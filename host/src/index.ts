// @entity-platform/host: draws an app's render answers into a page (docs/hosts.md).
//
//   import { mount } from "https://platform.example.com/apps/host/v1.js";
//   mount(document.getElementById("app"), { integrationId, credential, body: { user: "u-1" } });
import { defineElement } from "./element";

export { mount, type MountHandle, type MountOptions } from "./mount";
export { PlatformAppElement, defineElement } from "./element";
export { PlatformError } from "./errors";
export { markdown } from "./markdown";
export type * from "./types";

/** The catalogue this SDK draws every component of. */
export const CATALOGUE = "standard/1";

defineElement();
