// The OpenAPI document as a client generator and a reader rely on it: a server
// to call, every status an operation answers, and for every operation an
// example request and answer that its own schemas accept.
import { describe, expect, it } from "vitest";
import { routes } from "../../src/app";
import { buildOpenApi } from "../../src/openapi/document";
import { fits } from "../../src/openapi/examples";

const doc = buildOpenApi(routes, { serverUrl: "https://api.example.com/" });
const components = doc.components.schemas;

type Operation = {
  parameters: { name: string; in: string; schema: unknown; example?: unknown }[];
  requestBody?: { content: Record<string, { schema?: unknown; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }>;
};
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Operation>).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
);

describe("servers", () => {
  it("names the deployment's PUBLIC_URL, without a trailing slash", () => {
    expect(doc.servers).toEqual([{ url: "https://api.example.com", description: "This deployment (PUBLIC_URL)" }]);
  });
});

describe("examples", () => {
  /** `<operation> <place>: <problem>` for every example that is missing or that its schema refuses. */
  function exampleProblems(): string[] {
    const problems: string[] = [];
    const hold = (key: string, where: string, media: { schema?: unknown; example?: unknown }) => {
      if (media.schema === undefined) return;
      if (!("example" in media)) problems.push(`${key} ${where}: no example`);
      else if (!fits(media.schema, media.example, components))
        problems.push(`${key} ${where}: example ${JSON.stringify(media.example).slice(0, 200)} does not fit its schema`);
    };
    for (const { key, op } of operations) {
      for (const p of op.parameters) hold(key, `${p.in} parameter ${p.name}`, p);
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) hold(key, `request ${type}`, media);
      for (const [status, res] of Object.entries(op.responses))
        for (const [type, media] of Object.entries(res.content ?? {})) hold(key, `response ${status} ${type}`, media);
    }
    return problems;
  }

  it("gives every parameter, request body and answer of every operation an example its schema accepts", () => {
    expect(exampleProblems()).toEqual([]);
  });

  it("gives every operation an example request (a body or parameters) or an operation that takes none, and an example answer", () => {
    const missing = operations.flatMap(({ key, op }) => {
      const answered = Object.entries(op.responses).some(
        ([status, res]) => Number(status) < 300 && Object.values(res.content ?? {}).some((m) => "example" in m),
      );
      const bare = Object.entries(op.responses).some(([status, res]) => Number(status) < 300 && !res.content);
      return answered || bare ? [] : [key];
    });
    expect(missing).toEqual([]);
  });

  it("catches an example its schema refuses", () => {
    expect(
      fits({ $ref: "#/components/schemas/Error" }, { error: { status: 404, code: "NOT_FOUND", message: "x", details: { request_id: "r" } } }, components),
    ).toBe(true);
    expect(fits({ $ref: "#/components/schemas/Error" }, { error: { status: 404, code: "NOPE", message: "x", details: {} } }, components)).toBe(false);
  });

  it("shows a declared example as written and answers errors with the code of their status", () => {
    const validate = doc.paths["/schema/validate"].post as Operation;
    expect(validate.requestBody!.content["application/json"].example).toEqual({ schema_name: "order", data: { sku: "A-1", quantity: 2 } });
    expect(validate.responses["404"].content!["application/json"].example).toMatchObject({ error: { status: 404, code: "NOT_FOUND" } });
  });
});

describe("statuses", () => {
  const statuses = (method: string, path: string) => Object.keys((doc.paths[path] as Record<string, Operation>)[method].responses);

  it("declares 404 on every operation with a path parameter, but the upload route, which answers an unknown slot 410", () => {
    const undeclared = operations.filter(({ key, op }) => key.includes("{") && !("404" in op.responses)).map(({ key }) => key);
    expect(undeclared).toEqual(["POST /apps/upload/{integrationId}/{uploadId}"]);
    expect(statuses("post", "/apps/upload/{integrationId}/{uploadId}")).toEqual(expect.arrayContaining(["403", "409", "410", "413", "415"]));
  });

  it("declares 404 where a body or query names something unknown", () => {
    expect(statuses("post", "/schema/validate")).toContain("404");
    expect(statuses("post", "/entity/entities")).toContain("404");
    expect(statuses("get", "/entity/entities")).toContain("404");
    expect(statuses("post", "/entity/relationship-rules")).toContain("404");
    expect(statuses("post", "/workflows/wr")).toContain("404");
  });

  it("declares 409 on every operation that honours Idempotency-Key, and where a workflow must be activated first", () => {
    const undeclared = operations.filter(({ op }) => op.parameters.some((p) => p.name === "Idempotency-Key")).filter(({ op }) => !("409" in op.responses));
    expect(undeclared.map(({ key }) => key)).toEqual([]);
    expect(statuses("post", "/workflows/wr")).toContain("409");
    expect(statuses("put", "/workflows/{id}/config")).toEqual(expect.arrayContaining(["404", "409"]));
    for (const path of ["/workflows/{id}/activate", "/workflows/{id}/triggers/{triggerId}/enable", "/workflows/{id}/triggers/{triggerId}/disable"]) {
      expect(Object.keys((doc.paths[path] as Record<string, Operation>)[path.endsWith("activate") ? "post" : "put"].responses)).toContain("404");
    }
  });
});
