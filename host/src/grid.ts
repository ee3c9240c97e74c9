// data_grid: rows in columns, sorted, filtered and paged. A source that pages
// on the server answers one page and a total above it: each change is written
// to `state.widgets.<gridId>.data_grid` and posted, and the answer is the new
// page. Otherwise the grid holds every row and pages, sorts and filters them
// itself, still keeping `data_grid` in the state it posts back.
import { at, h, isObj, safeUrl, str, type Child } from "./dom";
import { button } from "./controls";
import type { Standard } from "./components";
import type { GridState, Obj } from "./types";

interface Column {
  path: string;
  label: string;
  type: string;
  sortable: boolean;
  filterable: boolean;
}

function columnsOf(props: Obj, rows: unknown[]): Column[] {
  const given = Array.isArray(props.columns) ? props.columns : Object.keys(isObj(rows[0]) ? rows[0] : {}).filter((k) => !isObj((rows[0] as Obj)[k]));
  return given.flatMap((c): Column[] => {
    const col = typeof c === "string" ? { path: c } : isObj(c) ? c : undefined;
    const path = col && str(col.path);
    if (!col || !path) return [];
    return [
      {
        path,
        label: str(col.label) || path.split(".").pop()!,
        type: str(col.type) || "text",
        sortable: col.sortable !== false,
        filterable: col.filterable === true,
      },
    ];
  });
}

function compare(a: unknown, b: unknown): number {
  const none = (v: unknown) => v === null || v === undefined || v === "";
  if (none(a) || none(b)) return none(a) ? (none(b) ? 0 : 1) : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return str(a).localeCompare(str(b), undefined, { numeric: true, sensitivity: "base" });
}

function matches(value: unknown, filter: unknown): boolean {
  if (Array.isArray(filter)) return filter.some((f) => matches(value, f));
  if (typeof filter === "string") return str(value).toLowerCase().includes(filter.toLowerCase());
  return value === filter;
}

function cell(value: unknown, type: string): Child {
  if (value === null || value === undefined) return "";
  switch (type) {
    case "boolean":
      return value ? "Yes" : "No";
    case "date":
    case "datetime": {
      const d = new Date(str(value));
      return Number.isNaN(d.getTime()) ? str(value) : type === "date" ? d.toLocaleDateString() : d.toLocaleString();
    }
    case "badge":
      return h("span", { class: "pf-badge pf-tone-neutral" }, str(value));
    case "link": {
      const href = safeUrl(value);
      return href ? h("a", { href, rel: "noopener noreferrer", target: "_blank" }, str(value)) : str(value);
    }
    default:
      return str(value);
  }
}

/** The page size the service pages a grid at when its state has none (and the grid's own default). */
const PAGE_SIZE = 20;

const itemIdOf = (row: unknown) => (isObj(row) && (typeof row.id === "string" || typeof row.id === "number") ? row.id : undefined);

export const dataGrid: Standard = (props, ctx, app) => {
  const wrap = h("div", { class: "pf-grid" });
  const rows = ctx.data?.rows ?? [];
  const total = ctx.data?.total ?? rows.length;
  // Once paged on the server, always: a filter the server answers in one page (its rows all of its total) must still be posted, not kept in the browser.
  const paged = `${ctx.key}|paged`;
  const server = total > rows.length || app.ui.get(paged) === true;
  if (server) app.ui.set(paged, true);
  const columns = columnsOf(props, rows);
  const defaultSize = typeof props.pageSize === "number" && props.pageSize >= 1 ? Math.min(1000, Math.floor(props.pageSize)) : PAGE_SIZE;
  const saved = isObj(ctx.state.data_grid) ? (ctx.state.data_grid as GridState) : {};
  let grid: Required<GridState> = {
    page: typeof saved.page === "number" && saved.page >= 1 ? saved.page : 1,
    pageSize: typeof saved.pageSize === "number" && saved.pageSize >= 1 ? saved.pageSize : defaultSize,
    sorting: Array.isArray(saved.sorting) ? saved.sorting : [],
    filters: isObj(saved.filters) ? saved.filters : {},
  };
  const rowActions = (Array.isArray(props.rowActions) ? props.rowActions : [])
    .filter(isObj)
    .map((a) => ({ action: str(a.action), label: str(a.label) || str(a.action) }));
  const opens = () => !!ctx.id && !app.lacks(ctx.id, "open");
  const act = (handler: string, payload: Obj) => app.act({ widgetId: ctx.id!, handler, payload, surface: ctx.surface }, handler === "open");

  // Without a `data_grid` in the state the service pages at its default size. The grid's own size goes into the state; a smaller
  // first page is the start of the rows answered, any other window is asked for (once: an answer that drops the state is not chased).
  let answered = rows;
  if (server && typeof saved.pageSize !== "number" && grid.pageSize !== PAGE_SIZE) {
    ctx.setState({ data_grid: grid });
    if (grid.page === 1 && grid.pageSize < PAGE_SIZE) answered = rows.slice(0, grid.pageSize);
    else if (!app.ui.has(`${paged}|asked`)) {
      app.ui.set(`${paged}|asked`, true);
      queueMicrotask(() => void ctx.refresh());
    }
  }

  const change = (patch: Partial<GridState>, focus: string) => {
    grid = { ...grid, ...patch } as Required<GridState>;
    ctx.setState({ data_grid: grid });
    if (server) return void ctx.refresh();
    draw();
    wrap.querySelector<HTMLElement>(`[data-control="${focus}"]`)?.focus();
  };

  const draw = () => {
    const sort = grid.sorting[0];
    let shown = answered;
    let count = total;
    if (!server) {
      const filters = Object.entries(grid.filters).filter(([, f]) => f !== "" && f !== null && f !== undefined);
      shown = rows.filter((r) => filters.every(([path, f]) => matches(at(r, path), f)));
      if (sort) {
        const [key, dir] = [str(sort.id), sort.desc ? -1 : 1];
        const none = (v: unknown) => v === null || v === undefined || v === "";
        shown = shown
          .map((r, i) => [r, i] as const)
          .sort(([a, i], [b, j]) => {
            const [x, y] = [at(a, key), at(b, key)];
            return (none(x) || none(y) ? compare(x, y) : dir * compare(x, y)) || i - j;
          })
          .map(([r]) => r);
      }
      count = shown.length;
      shown = shown.slice((grid.page - 1) * grid.pageSize, grid.page * grid.pageSize);
    }
    const pages = Math.max(1, Math.ceil(count / grid.pageSize));
    const parts: Element[] = [];

    const filterable = columns.filter((c) => c.filterable);
    if (filterable.length) {
      parts.push(
        h(
          "div",
          { class: "pf-actions" },
          ...filterable.map((c) => {
            const input = h("input", {
              type: "search",
              "aria-label": `Filter ${c.label}`,
              placeholder: `Filter ${c.label}`,
              "data-control": `filter:${c.path}`,
            });
            input.value = str(grid.filters[c.path]);
            input.addEventListener("change", () => {
              const filters = { ...grid.filters };
              if (input.value) filters[c.path] = input.value;
              else delete filters[c.path];
              change({ filters, page: 1 }, `filter:${c.path}`);
            });
            return input;
          }),
        ),
      );
    }

    const head = columns.map((c) => {
      const dir = sort && sort.id === c.path ? (sort.desc ? "descending" : "ascending") : undefined;
      const th = h("th", { scope: "col", class: c.type === "number" ? "pf-num" : undefined, "aria-sort": dir });
      if (!c.sortable) th.append(c.label);
      else
        th.append(
          button(
            `${c.label}${dir === "ascending" ? " ▲" : dir === "descending" ? " ▼" : ""}`,
            () =>
              change({ sorting: !dir ? [{ id: c.path, desc: false }] : dir === "ascending" ? [{ id: c.path, desc: true }] : [], page: 1 }, `sort:${c.path}`),
            "",
            {
              "data-control": `sort:${c.path}`,
            },
          ),
        );
      return th;
    });
    if (rowActions.length) head.push(h("th", { scope: "col" }, "Actions"));
    const body = shown.map((r) => {
      const itemId = itemIdOf(r);
      const cells = columns.map((c, i) => {
        const content = cell(at(r, c.path), c.type);
        const td = h("td", { class: c.type === "number" ? "pf-num" : undefined });
        if (i === 0 && itemId !== undefined && opens())
          td.append(button(str(at(r, c.path)) || String(itemId), () => void act("open", { itemId }), "pf-linkbtn"));
        else if (content !== "") td.append(typeof content === "object" && content ? content : String(content));
        return td;
      });
      if (rowActions.length)
        cells.push(
          h(
            "td",
            {},
            h(
              "div",
              { class: "pf-actions" },
              ...rowActions.map((a) =>
                button(a.label, () => void act("rowAction", { itemId: itemId ?? null, action: a.action } as Obj), "pf-btn", { disabled: itemId === undefined }),
              ),
            ),
          ),
        );
      return h("tr", { "data-item-id": itemId === undefined ? undefined : String(itemId) }, ...cells);
    });
    if (!body.length) body.push(h("tr", {}, h("td", { colspan: Math.max(1, head.length) }, str(props.emptyText) || "No rows")));
    parts.push(
      h(
        "table",
        { "aria-label": props.title === undefined ? "Data grid" : undefined },
        props.title !== undefined ? h("caption", {}, str(props.title)) : null,
        h("thead", {}, h("tr", {}, ...head)),
        h("tbody", {}, ...body),
      ),
    );
    if (pages > 1 || grid.page > 1) {
      parts.push(
        h(
          "div",
          { class: "pf-pager" },
          button("Previous", () => change({ page: grid.page - 1 }, "prev"), "pf-btn", { disabled: grid.page <= 1, "data-control": "prev" }),
          h("span", { "aria-live": "polite" }, `Page ${grid.page} of ${pages}`),
          button("Next", () => change({ page: grid.page + 1 }, "next"), "pf-btn", { disabled: grid.page >= pages, "data-control": "next" }),
        ),
      );
    }
    wrap.replaceChildren(...parts);
  };
  draw();
  return wrap;
};
