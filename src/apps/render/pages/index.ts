// The layout resolution of a render: what the route calls.
export { RenderNotifications, causeOf } from "./notifications";
export { renderScreens, type RenderInput } from "./render";
export type {
  Block,
  ModalAnswer,
  NodeBlock,
  ReferenceData,
  RenderAnswer,
  ScanCardProps,
  Surface,
  WidgetBlock,
} from "./types";
