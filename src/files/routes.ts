// Artifacts and temp files, with the capability routes their links point at.
import { artifactRoutes } from "./artifacts/routes";
import { tempFileRoutes } from "./temp-files/routes";

export const fileRoutes = [...artifactRoutes, ...tempFileRoutes];
