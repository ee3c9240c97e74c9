// /definition/specs: app specs, their versions, validation without saving and
// the document's JSON Schema. The fixed paths (`schema`, `validate`) are
// declared before `/definition/specs/:id`, which would otherwise take them as ids.
import { route } from "../../gateway/route";
import { dataEnvelope, deleted, listEnvelope, paginationQuery, schemaComponents } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { SPEC_DOCUMENT_SCHEMA } from "../language/spec-schema";
import { byId } from "../schemas";
import { createSpec, deleteSpec, getSpec, getVersion, listSpecs, listVersions, updateSpec, validateSpec } from "./service";
import { bySpecVersion, specBody, specItem, specValidation, validateSpecBody, versionDocument, versionItem } from "./schemas";

/** The spec document's schema as an OpenAPI component, so every operation refers to one copy. */
const { ref: specDocumentRef, components } = schemaComponents("SpecDocument", "Spec", SPEC_DOCUMENT_SCHEMA);
const documentedSpecBody = { ...specBody, properties: { ...specBody.properties, spec_document: specDocumentRef } };

const EXAMPLE_DOCUMENT = { dashboards: { main: { name: "Main", surfaces: { dashboard: "home" }, pages: { home: { layout: [] } } } } };
const EXAMPLE_SPEC = {
  id: "0b6f3a52-5d1e-4c6e-9f1a-3e2d4c5b6a71",
  name: "Orders",
  description: "Order desk",
  version: 1,
  spec_document: EXAMPLE_DOCUMENT,
  created_at: "2026-01-15T09:30:00.000000Z",
  updated_at: "2026-01-15T09:30:00.000000Z",
};

export const specRoutes = [
  route({
    operation: "getSpecDocumentSchema",
    method: "get",
    path: "/definition/specs/schema",
    tag: "definitions",
    summary: "The JSON Schema of an app spec document",
    permission: ["definition", "read"],
    responses: { 200: { description: "The schema document", schema: dataEnvelope({ type: "object", additionalProperties: true }) } },
    handler: (c) => c.json({ data: SPEC_DOCUMENT_SCHEMA }),
  }),
  route({
    operation: "validateSpec",
    method: "post",
    path: "/definition/specs/validate",
    tag: "definitions",
    summary: "Check a spec document without saving it (every issue at once, the database checks included)",
    permission: ["definition", "read"],
    body: validateSpecBody,
    documentedBody: { ...validateSpecBody, properties: { spec_document: specDocumentRef } },
    components,
    examples: { request: { spec_document: EXAMPLE_DOCUMENT }, response: { data: { valid: true, issues: [] } } },
    responses: { 200: { description: "The outcome (problems are a 200 with valid: false)", schema: dataEnvelope(specValidation) } },
    handler: async (c, { body }) => c.json({ data: await validateSpec(c.var.ctx.tenant, body.spec_document) }),
  }),
  route({
    operation: "createSpec",
    method: "post",
    path: "/definition/specs",
    tag: "definitions",
    summary: "Publish a new app spec (version 1); its shares block is provisioned as manifest shares",
    permission: ["definition", "create"],
    idempotent: true,
    body: specBody,
    documentedBody: documentedSpecBody,
    components,
    examples: { request: { name: "Orders", description: "Order desk", spec_document: EXAMPLE_DOCUMENT }, response: { data: EXAMPLE_SPEC } },
    responses: {
      201: { description: "Published", schema: dataEnvelope(specItem) },
      409: { description: "Name taken" },
      422: { description: "The document is refused: details.code SPEC_STRUCTURE_INVALID (or SECRET_REF_IN_DEFINITION) with details.issues" },
    },
    handler: async (c, { body }) => c.json({ data: await createSpec(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listSpecs",
    method: "get",
    path: "/definition/specs",
    tag: "definitions",
    summary: "List app specs, this tenant's and those shared with it (newest first)",
    permission: ["definition", "read"],
    query: { type: "object", additionalProperties: false, properties: { name: { type: "string", minLength: 1 }, ...paginationQuery } },
    responses: { 200: { description: "App specs", schema: listEnvelope(specItem) } },
    handler: async (c, { query }) => c.json(await listSpecs(c.var.ctx.tenant, query ?? {}, pageOf(query))),
  }),
  route({
    operation: "getSpec",
    method: "get",
    path: "/definition/specs/:id",
    tag: "definitions",
    summary: "Get an app spec (its document as written)",
    permission: ["definition", "read"],
    params: byId,
    responses: { 200: { description: "App spec", schema: dataEnvelope(specItem) }, 404: { description: "Unknown spec" } },
    handler: async (c, { params }) => c.json({ data: await getSpec(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "replaceSpec",
    method: "put",
    path: "/definition/specs/:id",
    tag: "definitions",
    summary: "Publish the spec's next version",
    permission: ["definition", "update"],
    params: byId,
    body: specBody,
    documentedBody: documentedSpecBody,
    components,
    examples: { request: { name: "Orders", description: "Order desk", spec_document: EXAMPLE_DOCUMENT }, response: { data: { ...EXAMPLE_SPEC, version: 2 } } },
    responses: {
      200: { description: "Published", schema: dataEnvelope(specItem) },
      403: { description: "A spec another tenant shares with this one" },
      404: { description: "Unknown spec" },
      409: { description: "Name taken" },
      422: { description: "The document is refused: details.code SPEC_STRUCTURE_INVALID (or SECRET_REF_IN_DEFINITION) with details.issues" },
    },
    handler: async (c, { params, body }) => c.json({ data: await updateSpec(c.var.ctx.tenant, params.id, body) }),
  }),
  route({
    operation: "deleteSpec",
    method: "delete",
    path: "/definition/specs/:id",
    tag: "definitions",
    summary: "Delete an app spec with its versions, this tenant's activation of it and its manifest shares",
    permission: ["definition", "delete"],
    params: byId,
    responses: {
      200: {
        description: "Deleted",
        schema: dataEnvelope(deleted),
      },
      403: { description: "A spec another tenant shares with this one" },
      404: { description: "Unknown spec" },
      409: { description: "Other tenants have activated the spec (details.activations: how many)" },
    },
    handler: async (c, { params }) => {
      await deleteSpec(c.var.ctx.tenant, params.id);
      return c.json({ data: { id: params.id, deleted: true } });
    },
  }),
  route({
    operation: "listSpecVersions",
    method: "get",
    path: "/definition/specs/:id/versions",
    tag: "definitions",
    summary: "List a spec's versions (newest first)",
    permission: ["definition", "read"],
    params: byId,
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery } },
    responses: { 200: { description: "Versions", schema: listEnvelope(versionItem) }, 404: { description: "Unknown spec" } },
    handler: async (c, { params, query }) => c.json(await listVersions(c.var.ctx.tenant, params.id, pageOf(query))),
  }),
  route({
    operation: "getSpecVersion",
    method: "get",
    path: "/definition/specs/:id/versions/:version",
    tag: "definitions",
    summary: "Get one kept version of a spec's document",
    permission: ["definition", "read"],
    params: bySpecVersion,
    examples: { parameters: { version: "1" } },
    responses: { 200: { description: "The version", schema: dataEnvelope(versionDocument) }, 404: { description: "Unknown spec or version" } },
    handler: async (c, { params }) => c.json({ data: await getVersion(c.var.ctx.tenant, params.id, Number(params.version)) }),
  }),
];
