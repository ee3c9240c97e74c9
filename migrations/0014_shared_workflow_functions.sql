-- Shared workflows (docs/workflows.md, Shared workflows): the two facts a
-- tenant needs about another tenant's rows that row-level security hides
-- from it. SECURITY DEFINER, each answering only what its caller's side of a
-- share may know.
--
-- The owner deleting a workflow: how many other tenants it is shared with
-- have activated it (an activation left behind by a revoked share does not count).
CREATE OR REPLACE FUNCTION platform_workflow_activations_elsewhere(p_workflow uuid) RETURNS integer
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ SELECT count(*)::int FROM workflow_activations a
         WHERE a.workflow_id = p_workflow
           AND a.tenant_id <> (select nullif(current_setting('app.tenant_id', true), '')::uuid)
           AND EXISTS (SELECT 1 FROM workflow_definitions d
                        WHERE d.id = p_workflow AND d.tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid))
           AND EXISTS (SELECT 1 FROM shares s
                        WHERE s.tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) AND s.target_tenant_id = a.tenant_id
                          AND s.resource_type = 'workflow' AND s.resource_id = p_workflow) $$;
--> statement-breakpoint
-- A target activating a shared workflow: the names of the owner's entity
-- types and relationship rules its event triggers name, so its own triggers
-- can name the target's of the same names. Only those the current
-- definition's triggers name, and only while the workflow is shared with the caller.
CREATE OR REPLACE FUNCTION platform_shared_trigger_targets(p_workflow uuid) RETURNS TABLE (kind text, id uuid, name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
  AS $$ WITH d AS (
          SELECT d.tenant_id, d.definition_json FROM workflow_definitions d
           WHERE d.id = p_workflow
             AND EXISTS (SELECT 1 FROM shares s
                          WHERE s.tenant_id = d.tenant_id AND s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)
                            AND s.resource_type = 'workflow' AND s.resource_id = d.id AND 'read' = ANY (s.actions))
        ), refs AS (
          SELECT d.tenant_id, tr->'source'->>'entityTypeId' AS type_id, tr->'source'->>'relationshipRuleId' AS rule_id
            FROM d CROSS JOIN LATERAL jsonb_array_elements(coalesce(d.definition_json->'triggers', '[]'::jsonb)) tr
           WHERE jsonb_typeof(tr->'source') = 'object'
        )
        SELECT 'entity_type', t.id, t.name FROM refs JOIN entity_types t ON t.tenant_id = refs.tenant_id AND t.id::text = refs.type_id
        UNION
        SELECT 'relationship_rule', r.id, r.name FROM refs JOIN relationship_rules r ON r.tenant_id = refs.tenant_id AND r.id::text = refs.rule_id $$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION platform_workflow_activations_elsewhere(uuid), platform_shared_trigger_targets(uuid) TO app_tenant;
