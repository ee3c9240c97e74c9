// The app activation check (src/access/app-access.ts) over permissions folded
// from grant rows as authentication folds them.
import { describe, expect, it } from "vitest";
import { allowsApp, requireApp } from "../../src/access/app-access";
import { foldGrants, type GrantRow } from "../../src/access/permissions";
import { holdsPermission, permissionStrings } from "../../src/lib/principal";
import { ApiError } from "../../src/lib/errors";

const A = "5b1f3c0e-0a4e-4c43-9a52-0c1d1e7d0001";
const B = "5b1f3c0e-0a4e-4c43-9a52-0c1d1e7d0002";
const row = (resource: string, actions: string[] | null, narrowed: Partial<GrantRow> = {}): GrantRow => ({
  resource,
  actions: actions!,
  resource_name: null,
  resource_id: null,
  entity_type: null,
  ...narrowed,
});

describe("app activation access", () => {
  it("folds an app grant narrowed by resource_id into a scoped grant on that activation only", () => {
    const principal = foldGrants([row("app", ["read", "update"], { resource_id: A }), row("entity", ["read"], { resource_name: "Order" })]);
    expect(principal.permissions).toEqual([]);
    expect(principal.scoped).toEqual([
      { resource: "app", actions: ["read", "update"], resourceName: null, resourceId: A, entityType: null },
      { resource: "entity", actions: ["read"], resourceName: "Order", resourceId: null, entityType: null },
    ]);
    expect(permissionStrings(principal)).toEqual([`app:read:${A}`, `app:update:${A}`, "entity:read:Order"]);
    expect([allowsApp(principal, "read", A), allowsApp(principal, "update", A), allowsApp(principal, "delete", A), allowsApp(principal, "read", B)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([holdsPermission(principal, `app:update:${A}`), holdsPermission(principal, `app:update:${B}`), holdsPermission(principal, "app:update")]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("lets an unnarrowed app permission or a * grant reach every activation, and answers 403 naming the activation otherwise", () => {
    const role = foldGrants([row("app:read", null)]);
    expect([allowsApp(role, "read", A), allowsApp(role, "read", B), allowsApp(role, "update", A)]).toEqual([true, true, false]);
    const star = foldGrants([row("app", ["*"], { resource_id: B })]);
    expect([allowsApp(star, "delete", B), allowsApp(star, "read", A)]).toEqual([true, false]);
    const entityOnly = foldGrants([row("entity", ["*"], { resource_id: A })]);
    expect(allowsApp(entityOnly, "read", A)).toBe(false);

    expect(() => requireApp(star, "read", B)).not.toThrow();
    let refused: unknown;
    try {
      requireApp(star, "update", A);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(ApiError);
    const err = refused as ApiError;
    expect([err.status, err.code, err.message, err.details]).toEqual([
      403,
      "FORBIDDEN",
      `Permission app:update is required for app activation ${A}`,
      { resource: "app", action: "update", resource_id: A },
    ]);
  });
});
