// A small client typed only by what openapi-typescript generates from the
// served GET /openapi.json. The generated types are handed to the compiler as
// ./api when test/e2e/openapi-client.test.ts type-checks this file; at run
// time the type import is erased.
import type { paths } from "./api";

type Method = "get" | "post" | "put" | "patch" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonBody<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type JsonAnswer<O, S extends number> = O extends { responses: { [K in S]: { content: { "application/json": infer B } } } } ? B : never;
/** Distributes over S, so checking `status` narrows `body`. */
type Answer<O, S extends number> = S extends number ? { status: S; body: JsonAnswer<O, S> } : never;

/** One response as the client received it, for the test to check against the document. */
export interface Exchange {
  method: Method;
  path: keyof paths;
  status: number;
  contentType: string | null;
  body: unknown;
}

export function createClient(baseUrl: string, authorization: string, seen: (exchange: Exchange) => void) {
  async function send(method: Method, path: keyof paths, init: { params?: Record<string, string>; body?: unknown } = {}) {
    const url = baseUrl + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(init.params?.[name] ?? ""));
    const request = () =>
      fetch(url, {
        method: method.toUpperCase(),
        headers: { Authorization: authorization, ...(init.body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    // Node's fetch reuses a kept-alive socket the server may have closed while
    // the test compiled the generated client for seconds; a GET that lost that
    // race is sent once more (it changes nothing), anything else fails.
    const res = await request().catch((e: unknown) => {
      if (method !== "get") throw e;
      return request();
    });
    const body: unknown = await res.json();
    seen({ method, path, status: res.status, contentType: res.headers.get("Content-Type"), body });
    return { status: res.status, body };
  }

  /** The answer typed by its status, when it is one of those expected. */
  function expectStatus<O, S extends number>(answer: { status: number; body: unknown }, ...statuses: S[]): Answer<O, S> {
    if (!statuses.includes(answer.status as S)) throw new Error(`expected ${statuses.join(" or ")}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer as Answer<O, S>;
  }

  type CreateType = Operation<"/entity/entity-types", "post">;
  type Upsert = Operation<"/entity/entities/upsert", "post">;
  type Query = Operation<"/entity/query", "post">;
  type GetEntity = Operation<"/entity/entities/{id}", "get">;

  return {
    document: async () => expectStatus<Operation<"/openapi.json", "get">, 200>(await send("get", "/openapi.json"), 200).body,
    createType: async (body: JsonBody<CreateType>) => expectStatus<CreateType, 201>(await send("post", "/entity/entity-types", { body }), 201).body.data,
    upsert: async (body: JsonBody<Upsert>) => expectStatus<Upsert, 200>(await send("post", "/entity/entities/upsert", { body }), 200).body.data,
    query: async (body: JsonBody<Query>) => expectStatus<Query, 200>(await send("post", "/entity/query", { body }), 200).body,
    getEntity: async (id: string) => expectStatus<GetEntity, 200 | 404>(await send("get", "/entity/entities/{id}", { params: { id } }), 200, 404),
  };
}

export type Client = ReturnType<typeof createClient>;
type Entity = JsonAnswer<Operation<"/entity/entities/{id}", "get">, 200>["data"];

/**
 * What a client does with the API: create a type, upsert rows, page through a
 * query by cursor, read every entity by id, and read one that does not exist.
 */
export async function scenario(client: Client, typeName: string, skus: string[], pageSize: number) {
  const document = await client.document();
  const type = await client.createType({
    name: typeName,
    status: "active",
    schema: { type: "object", required: ["sku", "price"], properties: { sku: { type: "string" }, price: { type: "number" } } },
    config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["price"], type: "numeric", sortable: true }] },
  });
  const upserted = await client.upsert({
    type_name: type.name,
    data: skus.map((sku, i) => ({ name: `Item ${sku}`, attributes: { sku, price: 10 * (skus.length - i) } })),
  });

  const pages: Entity[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.query({
      type_name: type.name,
      sort: [{ path: ["attributes", "price"], direction: "asc" }],
      limit: pageSize,
      ...(cursor ? { cursor } : {}),
    });
    pages.push(page.data);
    cursor = page.next_cursor;
  } while (cursor);

  const read: Entity[] = [];
  for (const id of upserted.ids) {
    const answer = await client.getEntity(id);
    if (answer.status === 200) read.push(answer.body.data);
  }
  const missing = await client.getEntity("00000000-0000-4000-8000-000000000000");
  return {
    openapi: document.openapi,
    type: { id: type.id, status: type.status, identifierKey: type.config.identifier_key },
    counts: { created: upserted.created, updated: upserted.updated },
    pages: pages.map((page) => page.map((e) => String(e.attributes.sku))),
    read: read.map((e) => ({ id: e.id, name: e.name, type: e.type.name, price: e.attributes.price, deletedAt: e.deleted_at })),
    missing: missing.status === 404 ? { status: missing.body.error.status, code: missing.body.error.code } : null,
  };
}
