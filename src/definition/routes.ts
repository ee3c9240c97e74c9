// /definition/workflows and /definition/jobs. The fixed paths (`schema`,
// `validate`) are declared before `/definition/workflows/:id`, which would
// otherwise take them as ids. A definition's test runs are the workflow
// engine's (workflows/test-runs/routes.ts), mounted between the two.
import { route } from "../gateway/route";
import { dataEnvelope, deleted, freeFormObject, listEnvelope, paginationQuery, schemaComponents } from "../lib/schemas";
import { pageOf } from "../lib/pagination";
import { JOB_LANGUAGE_SCHEMA, WORKFLOW_LANGUAGE_SCHEMA } from "./language/workflow-schema";
import { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, updateWorkflow, validateWorkflow } from "./workflows";
import { getJob, listJobs, publishJob } from "./jobs";
import { JOB_NAME, workflowBody, validateBody, workflowItem, jobItem, validation, byId } from "./schemas";

const workflowLanguage = schemaComponents("WorkflowDefinition", "Workflow", WORKFLOW_LANGUAGE_SCHEMA);
const jobLanguage = schemaComponents("JobDefinition", "Workflow", JOB_LANGUAGE_SCHEMA);

const documentedWorkflowBody = { ...workflowBody, properties: { ...workflowBody.properties, definition_json: workflowLanguage.ref } };

export const definitionRoutes = [
  route({
    operation: "getWorkflowLanguageSchema",
    method: "get",
    path: "/definition/workflows/schema",
    tag: "definitions",
    summary: "The JSON Schema of the workflow definition language",
    permission: ["definition", "read"],
    responses: { 200: { description: "The schema document", schema: dataEnvelope({ type: "object", additionalProperties: true }) } },
    handler: (c) => c.json({ data: WORKFLOW_LANGUAGE_SCHEMA }),
  }),
  route({
    operation: "validateWorkflow",
    method: "post",
    path: "/definition/workflows/validate",
    tag: "definitions",
    summary: "Check a workflow definition without saving it (every problem at once)",
    permission: ["definition", "read"],
    body: validateBody,
    documentedBody: { ...documentedWorkflowBody, required: [] },
    responses: { 200: { description: "The outcome (problems are a 200 with valid: false)", schema: dataEnvelope(validation) } },
    handler: async (c, { body }) => c.json({ data: validateWorkflow(body) }),
  }),
  route({
    operation: "createWorkflow",
    method: "post",
    path: "/definition/workflows",
    tag: "definitions",
    summary: "Create a workflow definition from definition_json or source_yaml",
    permission: ["definition", "create"],
    idempotent: true,
    body: workflowBody,
    documentedBody: documentedWorkflowBody,
    components: workflowLanguage.components,
    responses: {
      201: { description: "Created (draft, version 1)", schema: dataEnvelope(workflowItem) },
      409: { description: "Name taken" },
    },
    handler: async (c, { body }) => c.json({ data: await createWorkflow(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listWorkflows",
    method: "get",
    path: "/definition/workflows",
    tag: "definitions",
    summary: "List workflow definitions (newest first)",
    permission: ["definition", "read"],
    query: { type: "object", additionalProperties: false, properties: { name: { type: "string", minLength: 1 }, ...paginationQuery } },
    responses: { 200: { description: "Workflow definitions", schema: listEnvelope(workflowItem) } },
    handler: async (c, { query }) => c.json(await listWorkflows(c.var.ctx.tenant, query, pageOf(query))),
  }),
  route({
    operation: "getWorkflow",
    method: "get",
    path: "/definition/workflows/:id",
    tag: "definitions",
    summary: "Get a workflow definition",
    permission: ["definition", "read"],
    params: byId,
    responses: { 200: { description: "Workflow definition", schema: dataEnvelope(workflowItem) }, 404: { description: "Unknown workflow" } },
    handler: async (c, { params }) => c.json({ data: await getWorkflow(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "replaceWorkflow",
    method: "put",
    path: "/definition/workflows/:id",
    tag: "definitions",
    summary: "Replace a workflow definition (its next version)",
    permission: ["definition", "update"],
    params: byId,
    body: workflowBody,
    documentedBody: documentedWorkflowBody,
    responses: {
      200: { description: "Saved", schema: dataEnvelope(workflowItem) },
      403: { description: "A workflow another tenant shares with this one" },
      404: { description: "Unknown workflow" },
      409: { description: "Name taken" },
    },
    handler: async (c, { params, body }) => c.json({ data: await updateWorkflow(c.var.ctx.tenant, params.id, body) }),
  }),
  route({
    operation: "deleteWorkflow",
    method: "delete",
    path: "/definition/workflows/:id",
    tag: "definitions",
    summary: "Delete a workflow definition with its versions, activation, triggers, schedules and runs",
    permission: ["definition", "delete"],
    params: byId,
    responses: {
      200: {
        description: "Deleted",
        schema: dataEnvelope(deleted),
      },
      403: { description: "A workflow another tenant shares with this one" },
      404: { description: "Unknown workflow" },
      409: { description: "Activated by tenants it is shared with (details.activations: their count)" },
    },
    handler: async (c, { params }) => {
      await deleteWorkflow(c.var.ctx.tenant, params.id);
      return c.json({ data: { id: params.id, deleted: true } });
    },
  }),
];

export const jobRoutes = [
  route({
    operation: "createJob",
    method: "post",
    path: "/definition/jobs",
    tag: "definitions",
    summary: "Publish a job (a name published again gets the next version)",
    permission: ["definition", "create"],
    idempotent: true,
    body: {
      type: "object",
      additionalProperties: false,
      required: ["name", "definition_json"],
      properties: { name: JOB_NAME, definition_json: freeFormObject },
    },
    documentedBody: {
      type: "object",
      additionalProperties: false,
      required: ["name", "definition_json"],
      properties: { name: JOB_NAME, definition_json: jobLanguage.ref },
    },
    components: jobLanguage.components,
    responses: { 201: { description: "Published", schema: dataEnvelope(jobItem) } },
    handler: async (c, { body }) => c.json({ data: await publishJob(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listJobs",
    method: "get",
    path: "/definition/jobs",
    tag: "definitions",
    summary: "List published jobs (by name, newest version first)",
    permission: ["definition", "read"],
    query: { type: "object", additionalProperties: false, properties: { name: { type: "string", minLength: 1 }, ...paginationQuery } },
    responses: { 200: { description: "Job versions", schema: listEnvelope(jobItem) } },
    handler: async (c, { query }) => c.json(await listJobs(c.var.ctx.tenant, query, pageOf(query))),
  }),
  route({
    operation: "getJob",
    method: "get",
    path: "/definition/jobs/:id",
    tag: "definitions",
    summary: "Get a published job version",
    permission: ["definition", "read"],
    params: byId,
    responses: { 200: { description: "Job version", schema: dataEnvelope(jobItem) }, 404: { description: "Unknown job" } },
    handler: async (c, { params }) => c.json({ data: await getJob(c.var.ctx.tenant, params.id) }),
  }),
];
