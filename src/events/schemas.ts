// Request and response schemas of events: the routes validate with them and
// document them, and service input types are derived from them.
import { freeFormObject } from "../lib/schemas";

export const eventItem = {
  type: "object",
  required: ["id", "action", "entity_id", "entity_type", "suppressed", "payload", "created_at", "delivered_at"],
  properties: {
    id: { type: "string" },
    action: { enum: ["created", "updated", "deleted", "merged"] },
    entity_id: { type: "string" },
    entity_type: { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: ["string", "null"] } } },
    suppressed: { type: "boolean" },
    payload: { ...freeFormObject, description: "The entity as the event left it (payload.entity), with what the action adds" },
    created_at: { type: "string" },
    delivered_at: { type: ["string", "null"] },
  },
} as const;
