// What a render answers (docs/apps.md, "What a render answers"): the
// surfaces of the dashboard, their blocks and modals, the state the host
// posts back, the rows of every widget bound to a source, and notifications.
import type { Notification, PlacementType, RenderState } from "../contracts";

/** The placement types a dashboard may declare. */
export const PLACEMENT_TYPES: readonly PlacementType[] = ["dashboard", "panel", "scanCard"];

/** A widget on the page: its resolved `config` as `props`. */
export interface WidgetBlock {
  id: string;
  widgetComponent: string;
  props: unknown;
}

/** A row of widget ids, or an inline node with its resolved config and children. */
export interface NodeBlock {
  component: string;
  id?: string;
  config?: unknown;
  children?: Block[];
}

export type Block = WidgetBlock | NodeBlock;

export interface ModalAnswer {
  page: string;
  wide: boolean;
  blocks: Block[];
}

export interface ScanCardProps {
  title: string;
  link?: { title: string; href: string };
  app?: { name: string; image?: string };
  maxHeight?: string;
}

export interface Surface {
  type: PlacementType;
  id: PlacementType;
  page: string;
  props?: ScanCardProps;
  blocks: Block[];
  modals?: ModalAnswer[];
}

export interface ReferenceData {
  rows: unknown[];
  total: number;
}

export interface RenderAnswer {
  surfaces: Surface[];
  state: RenderState;
  referenceData: Record<string, ReferenceData>;
  notifications: Notification[];
  debug?: unknown[];
}
