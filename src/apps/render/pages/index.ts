// The layout resolution of a render: what the route calls.
export { RenderNotifications, causeOf, type ErrorCause } from "./notifications";
export { renderScreens, type RenderInput } from "./render";
export { MAX_MODALS, MAX_STATE_PART, MAX_WIDGET_STATE } from "./state";
export type {
  Block,
  ModalAnswer,
  ModalState,
  NodeBlock,
  PlacementType,
  ReferenceData,
  RenderAnswer,
  RenderState,
  ScanCardProps,
  Surface,
  WidgetBlock,
} from "./types";
