// What a render answers (docs/apps.md, "What a render answers"): the
// surfaces of the dashboard, their blocks and modals, the state the host
// posts back, the rows of every widget bound to a source, and notifications.
import type { Notification } from "../contracts";

/** A placement type a dashboard declares; a surface's `type` and `id`. */
export type PlacementType = "dashboard" | "panel" | "scanCard";
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

/** One open modal: the page it shows, its params and data, and the placement that opened it. */
export interface ModalState {
  page: string;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  surface: PlacementType;
}

/** What the host posts back to continue: where the placements are and what the widgets hold. */
export interface RenderState {
  dashboard: string;
  /** The current page; null until the first navigate, when each placement shows its entry page. */
  page: string | null;
  params: Record<string, unknown>;
  data: Record<string, unknown>;
  widgets: Record<string, Record<string, unknown>>;
  modals: ModalState[];
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
