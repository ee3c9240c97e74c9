// The example of docs/workflows.md ("A complete example") must stay a valid definition.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/api";

const EXAMPLE = {
  config: { env: { CRM_URL: "https://crm.example.com", CRM_TOKEN: null } },
  auth: { crm: { type: "bearer", token: "{{ config.env.CRM_TOKEN }}" } },
  triggers: [
    {
      id: "order_created",
      source: {
        entityTypeId: "6c0f3b8e-2f64-4a5e-9a53-0a1d2c3b4e5f",
        eventAction: "created",
        attributeFilters: [{ operator: "gte", path: "total", value: 100 }],
      },
      condition: "context.input.entity.attributes.status = 'new'",
      idempotencyKey: "{{ context.input.entity.id }}",
    },
    { id: "nightly", cron: "0 2 * * *" },
    { id: "manual", webhook: { methods: ["POST"] } },
    {
      id: "partner",
      webhook: { methods: ["POST"], verification: { location: "header", key: "X-Signature", method: "hmac-sha256" } },
      contextData: { partner: "{{ context.input.headers.`x-partner-id` }}" },
    },
  ],
  jobs: [
    {
      id: "prepare",
      input: { order: "{{ context.input.entity }}" },
      actions: [{ stepId: "shape", name: "pipe", config: { value: "{{ input.order.attributes }}" } }],
    },
    {
      id: "notify",
      dependencies: ["prepare"],
      condition: "outputs.prepare.shape != null",
      conditionPolicy: "continue",
      input: { crm: "{{ config.env.CRM_URL }}", order: "{{ outputs.prepare.shape }}" },
      actions: [
        {
          stepId: "post",
          name: "http",
          config: { url: "{{ input.crm & '/orders' }}", method: "POST", auth: "crm", body: "{{ input.order }}" },
          errorPolicy: "continue",
        },
      ],
    },
  ],
};

const YAML = `config:
  env:
    CRM_URL: https://crm.example.com
    CRM_TOKEN: null          # supplied at activation
auth:
  crm: { type: bearer, token: "{{ config.env.CRM_TOKEN }}" }
triggers:
  - id: nightly
    cron: "0 2 * * *"
  - id: manual
    webhook: { methods: [POST] }
jobs:
  - id: prepare
    input: { order: "{{ context.input }}" }
    actions:
      - { stepId: shape, name: pipe, config: { value: "{{ input.order }}" } }
`;

describe("docs/workflows.md", () => {
  it("its complete example, as JSON and as YAML, is a valid definition", async () => {
    const t = await createTenant();
    for (const body of [{ definition_json: EXAMPLE }, { source_yaml: YAML }]) {
      const res = await call("POST", "/definition/workflows/validate", { auth: t.auth, body });
      expect(res.status, res.text).toBe(200);
      expect(res.json.data).toEqual({ valid: true, errors: [] });
    }
  });
});
