// `standard/1`: the components every host kit can draw (docs/apps.md,
// "Component catalogues"). One declaration per component: what it shows, the
// JSON Schema of its resolved `config` (a widget's `props` in the answer), of
// the widget state a host may post back under `state.widgets.<id>`, and of the
// payload each handler sends. The same declarations answer
// GET /apps/components and document the components; the catalogue is
// versioned by its name, so a published version never changes meaning: a
// later catalogue is `standard/2`.
//
// Config schemas allow keys they do not name (`additionalProperties` is left
// open): a host may read extra keys of its own, and a spec written for one
// host stays publishable when the catalogue learns a key.

const text = { type: "string" } as const;
const flag = { type: "boolean" } as const;
const empty = { type: "object", properties: {}, additionalProperties: false } as const;
const noPayload = { payload: empty } as const;
/** A CSS length, as scanCard's `maxHeight` takes it. */
const cssLength = { type: "string", pattern: "^(0|[0-9]+(\\.[0-9]+)?(px|rem|em|vh|vw|%))$" } as const;
const tone = { enum: ["neutral", "info", "success", "warning", "danger"] } as const;
const option = {
  type: "object",
  required: ["value"],
  properties: { value: { type: ["string", "number", "boolean"] }, label: text },
} as const;
const optionSource = {
  options: { type: "array", items: option, description: "Choices given inline; with a dataSource, its rows are the choices" },
  valuePath: { ...text, description: "With a dataSource: the dotted row path of each choice's value (default `value`)" },
  labelPath: { ...text, description: "With a dataSource: the dotted row path of each choice's label (default `label`)" },
} as const;
const selected = { type: ["string", "number", "boolean", "null"] } as const;

/** A form field (SPEC.md 2.9): its `type` decides the value it holds and the keys that apply. */
const formField = {
  type: "object",
  required: ["id", "type"],
  properties: {
    id: { type: "string", minLength: 1 },
    type: { enum: ["text", "textarea", "number", "select", "date", "checkbox", "file"] },
    label: text,
    required: flag,
    placeholder: text,
    options: { type: "array", items: option },
    accept: { type: "array", items: text },
    maxFileSize: { type: "integer", minimum: 1, maximum: 26214400 },
    previewPage: text,
    uploadUrl: { ...text, description: "A file field: the upload slot's link a createTempFileUploadUrl step minted; the host posts the file there" },
  },
} as const;

const gridColumn = {
  oneOf: [
    { type: "string", minLength: 1, description: "The dotted row path; its last segment is the label" },
    {
      type: "object",
      required: ["path"],
      properties: {
        path: { type: "string", minLength: 1 },
        label: text,
        type: { enum: ["text", "number", "date", "datetime", "boolean", "badge", "link"] },
        sortable: flag,
        filterable: flag,
      },
    },
  ],
} as const;

/** The grid paging a host posts back (SPEC.md 2.11): what a paged source reads. */
const gridState = {
  type: "object",
  properties: {
    data_grid: {
      type: "object",
      properties: {
        page: { type: "integer", minimum: 0 },
        pageSize: { type: "integer", minimum: 1, maximum: 1000 },
        sorting: { type: "array", items: { type: "object", required: ["id"], properties: { id: text, desc: flag } } },
        filters: { type: "object", additionalProperties: { type: ["string", "number", "boolean", "array"] } },
      },
    },
  },
} as const;

const item = { type: "object", required: ["itemId"], properties: { itemId: { type: ["string", "number"] } } } as const;

export const STANDARD_1 = {
  section: {
    description: "A titled group of its children, optionally collapsible",
    config: { type: "object", properties: { title: text, collapsible: flag, collapsed: flag } },
    state: { type: "object", properties: { collapsed: flag } },
    handlers: {},
  },
  row: {
    description: "Its children side by side, wrapping on narrow screens",
    config: { type: "object", properties: { gap: { enum: ["none", "small", "medium", "large"] } } },
    state: empty,
    handlers: {},
  },
  tabs: {
    description: "One tab per child, titled by the child's title; one shown at a time",
    config: { type: "object", properties: { selected: { type: "integer", minimum: 0 } } },
    state: { type: "object", properties: { selected: { type: "integer", minimum: 0 } } },
    handlers: {
      change: { payload: { type: "object", required: ["index"], properties: { index: { type: "integer", minimum: 0 } }, additionalProperties: false } },
    },
  },
  header: {
    description: "The page's title bar (top level only)",
    config: { type: "object", properties: { title: text, subtitle: text } },
    state: empty,
    handlers: {},
  },
  footer: {
    description: "The page's closing bar (top level only)",
    config: { type: "object", properties: { text } },
    state: empty,
    handlers: {},
  },
  divider: {
    description: "A horizontal rule between blocks",
    config: { type: "object", properties: {} },
    state: empty,
    handlers: {},
  },
  iframe: {
    description: "Another page embedded, sandboxed, with a title for assistive technology",
    config: { type: "object", required: ["url", "title"], properties: { url: { type: "string", minLength: 1 }, title: text, height: cssLength } },
    state: empty,
    handlers: {},
  },
  file_viewer: {
    description: "A file shown inline when the browser can (images, PDF, text), else a download link",
    config: { type: "object", required: ["url"], properties: { url: { type: "string", minLength: 1 }, name: text, contentType: text } },
    state: empty,
    handlers: {},
  },
  text: {
    description: "A paragraph of plain text",
    config: { type: "object", required: ["text"], properties: { text: { type: ["string", "number"] }, tone: { enum: ["default", "muted", "strong"] } } },
    state: empty,
    handlers: {},
  },
  heading: {
    description: "A heading of level 1 to 6",
    config: { type: "object", required: ["text"], properties: { text, level: { type: "integer", minimum: 1, maximum: 6 } } },
    state: empty,
    handlers: {},
  },
  markdown: {
    description: "CommonMark text: emphasis, links, lists, code; raw HTML is shown as text",
    config: { type: "object", required: ["markdown"], properties: { markdown: text } },
    state: empty,
    handlers: {},
  },
  button: {
    description: "A button that runs its click handler",
    config: { type: "object", required: ["label"], properties: { label: text, variant: { enum: ["primary", "secondary", "danger"] }, disabled: flag } },
    state: empty,
    handlers: { click: noPayload },
  },
  link: {
    description: "A link to a URL, or with a click handler an action styled as a link",
    config: { type: "object", required: ["label"], properties: { label: text, href: text, newTab: flag } },
    state: empty,
    handlers: { click: noPayload },
  },
  image: {
    description: "An image with its alternative text",
    config: { type: "object", required: ["src", "alt"], properties: { src: { type: "string", minLength: 1 }, alt: text, width: cssLength, height: cssLength } },
    state: empty,
    handlers: {},
  },
  badge: {
    description: "A short status label",
    config: { type: "object", required: ["label"], properties: { label: { type: ["string", "number"] }, tone } },
    state: empty,
    handlers: {},
  },
  alert: {
    description: "A message box announced to assistive technology",
    config: { type: "object", required: ["message"], properties: { message: text, title: text, level: { enum: ["info", "success", "warning", "error"] } } },
    state: empty,
    handlers: {},
  },
  stat: {
    description: "One figure with its label",
    config: {
      type: "object",
      required: ["label", "value"],
      properties: { label: text, value: { type: ["string", "number", "null"] }, unit: text, trend: { enum: ["up", "down", "flat"] } },
    },
    state: empty,
    handlers: {},
  },
  select: {
    description: "A choice among options, inline or from its data source's rows",
    config: { type: "object", properties: { label: text, placeholder: text, value: selected, ...optionSource } },
    state: { type: "object", properties: { value: selected } },
    handlers: { change: { payload: { type: "object", required: ["value"], properties: { value: selected }, additionalProperties: false } } },
  },
  checkbox: {
    description: "A labelled yes or no",
    config: { type: "object", required: ["label"], properties: { label: text, checked: flag } },
    state: { type: "object", properties: { checked: flag } },
    handlers: { change: { payload: { type: "object", required: ["checked"], properties: { checked: flag }, additionalProperties: false } } },
  },
  text_input: {
    description: "A labelled single-line (or multiline) text field",
    config: { type: "object", properties: { label: text, placeholder: text, value: text, multiline: flag } },
    state: { type: "object", properties: { value: text } },
    handlers: {
      change: { payload: { type: "object", required: ["value"], properties: { value: text }, additionalProperties: false } },
      submit: { payload: { type: "object", required: ["value"], properties: { value: text }, additionalProperties: false } },
    },
  },
  form: {
    description: "Labelled fields sent together; file fields upload to an upload slot first",
    config: { type: "object", required: ["fields"], properties: { fields: { type: "array", items: formField }, submitLabel: text, cancelLabel: text } },
    state: { type: "object", description: "The fields' values by field id (a file field holds its temp file id)" },
    handlers: {
      submit: { payload: { type: "object", description: "The fields' values by field id" } },
      cancel: noPayload,
    },
  },
  data_grid: {
    description: "Rows in columns; pages, sorts and filters itself, or on the server over a paged source",
    config: {
      type: "object",
      properties: {
        title: text,
        columns: { type: "array", items: gridColumn },
        pageSize: { type: "integer", minimum: 1, maximum: 1000 },
        rowActions: {
          type: "array",
          items: { type: "object", required: ["action", "label"], properties: { action: { type: "string", minLength: 1 }, label: text } },
          description: "Buttons on each row: each runs the rowAction handler with the row's itemId and its action",
        },
        emptyText: text,
      },
    },
    state: gridState,
    handlers: {
      open: { payload: item },
      rowAction: { payload: { ...item, required: ["itemId", "action"], properties: { ...item.properties, action: text } } },
    },
  },
  list: {
    description: "Rows as a list of titled items",
    config: { type: "object", properties: { titlePath: text, subtitlePath: text, emptyText: text } },
    state: empty,
    handlers: { open: { payload: item } },
  },
  chart: {
    description: "A bar, line or pie chart over its data source's rows, with a table of the same figures",
    config: {
      type: "object",
      required: ["kind", "x", "y"],
      properties: {
        kind: { enum: ["bar", "line", "pie"] },
        x: { ...text, description: "The dotted row path of each point's label" },
        y: { ...text, description: "The dotted row path of each point's number" },
        title: text,
      },
    },
    state: empty,
    handlers: {},
  },
} as const;
