// The shapes the SDK reads and writes. A render answer's shape is docs/apps.md
// "What a render answers"; each standard/1 component's config, state and
// handler payloads come from the catalogue's own JSON Schemas
// (src/definition/language/components/standard.ts, served by GET /apps/components), so the
// SDK's types follow the catalogue the service checks specs against.
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { STANDARD_1 } from "../../src/definition/language/components/standard";

type Catalogue = typeof STANDARD_1;
/** A component of the standard/1 catalogue. */
export type StandardComponent = keyof Catalogue;
type Schema<S> = S extends JSONSchema ? FromSchema<S> : never;
/** A standard/1 component's resolved config: a widget's `props`. */
export type ConfigOf<C extends StandardComponent> = Schema<Catalogue[C]["config"]>;
/** What a host may post back under `state.widgets.<widgetId>` for a component. */
export type StateOf<C extends StandardComponent> = Schema<Catalogue[C]["state"]>;
/** The payload of one handler of a component. */
export type PayloadOf<C extends StandardComponent, H extends keyof Catalogue[C]["handlers"]> = Catalogue[C]["handlers"][H] extends { payload: infer P }
  ? Schema<P>
  : never;

export type FormField = NonNullable<ConfigOf<"form">["fields"]>[number] & { uploadUrl?: string };
export type GridState = NonNullable<StateOf<"data_grid">["data_grid"]>;
export type GridColumn = NonNullable<ConfigOf<"data_grid">["columns"]>[number];

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type Obj = Record<string, unknown>;

/** A widget in a page's layout. */
export interface WidgetBlock {
  id: string;
  widgetComponent: string;
  props: Obj;
}
/** An inline layout node (a row, a section, tabs...) and its children. */
export interface NodeBlock {
  component: string;
  id?: string;
  config?: Obj;
  children?: Block[];
}
export type Block = WidgetBlock | NodeBlock;

export interface Modal {
  page: string;
  wide?: boolean;
  blocks: Block[];
}

export interface Surface {
  type: string;
  id: string;
  page: string;
  props?: { title?: string; link?: { title: string; href: string }; app?: { name: string; image?: string }; maxHeight?: string };
  blocks: Block[];
  modals?: Modal[];
}

export interface Notification {
  id: string;
  level: "INFO" | "WARNING" | "ERROR";
  message: string;
  details?: Obj;
}

export interface RenderState {
  dashboard?: string;
  page?: string | null;
  params?: Obj;
  data?: Obj;
  widgets?: Record<string, Obj>;
  modals?: { page: string; params?: Obj; data?: Obj; surface?: string }[];
  [key: string]: unknown;
}

/** `data` of a 200 answer of POST /apps/run/{integrationId}. */
export interface Answer {
  surfaces: Surface[];
  state: RenderState;
  referenceData: Record<string, { rows: unknown[]; total: number }>;
  notifications: Notification[];
  debug?: unknown[];
}

/** `action` of a render request: runs the widget's `actionHandlers.<handler>`. */
export interface Action {
  widgetId: string;
  handler: string;
  payload?: Obj;
  surface?: string;
}

/** What a component renderer gets besides its props. */
export interface RenderContext {
  /** The widget's id (or an inline node's, when it has one). */
  id?: string;
  /** The component name the answer gave. */
  component: string;
  /** True for a widget (it can post actions and keep state), false for an inline node. */
  widget: boolean;
  /** The placement showing it (`dashboard`, `panel`, `scanCard`). */
  surface: string;
  /** `referenceData.<id>` of a widget with a data source. */
  data?: { rows: unknown[]; total: number };
  /** The widget's state, as it will be posted back (`state.widgets.<id>`). */
  state: Obj;
  /** Merges into the widget's state without posting; the next render posts it. */
  setState(patch: Obj): void;
  /** Posts `action: { widgetId, handler, payload, surface }` with the state, and draws the answer. */
  action(handler: string, payload?: Obj): Promise<void>;
  /** Posts the state (no action) and draws the answer. */
  refresh(): Promise<void>;
  /** The children, already drawn (containers). */
  children: Element[];
}

/** A host's own renderer: answers the element to show. */
export type ComponentRenderer = (props: Obj, ctx: RenderContext) => Element;

export interface UploadResult {
  widgetId: string;
  fieldId: string;
  status: number;
  /** The provider's answer: its upload body, or its error body. */
  body: unknown;
}
