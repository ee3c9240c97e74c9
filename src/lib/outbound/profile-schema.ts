// The outbound auth profile block, as any document declares one (a
// workflow's root `auth` map and inline `auth`, an app's providers and
// sources): `type`, `grant`, `in`, `name` and `clientAuth` are literals, the
// rest a literal or a `{{ }}` template the document kind resolves.

/** A profile field: a literal string or a `{{ }}` template. */
const profileText = { type: "string" } as const;

export const AUTH_PROFILE_SCHEMA = {
  required: ["type"],
  properties: { type: { enum: ["basic", "bearer", "apiKey", "oauth2"] } },
  allOf: [
    {
      if: { required: ["type"], properties: { type: { const: "basic" } } },
      then: { required: ["username", "password"], properties: { type: true, username: profileText, password: profileText }, additionalProperties: false },
    },
    {
      if: { required: ["type"], properties: { type: { const: "bearer" } } },
      then: { required: ["token"], properties: { type: true, token: profileText }, additionalProperties: false },
    },
    {
      if: { required: ["type"], properties: { type: { const: "apiKey" } } },
      then: {
        required: ["in", "name", "value"],
        properties: { type: true, in: { enum: ["header", "query"] }, name: { type: "string", minLength: 1 }, value: profileText },
        additionalProperties: false,
      },
    },
    {
      if: { required: ["type"], properties: { type: { const: "oauth2" } } },
      then: {
        required: ["tokenUrl", "clientId", "clientSecret"],
        properties: {
          type: true,
          grant: { const: "clientCredentials", default: "clientCredentials" },
          tokenUrl: profileText,
          clientId: profileText,
          clientSecret: profileText,
          scope: profileText,
          audience: profileText,
          clientAuth: { enum: ["basic", "body"], default: "basic" },
        },
        additionalProperties: false,
      },
    },
  ],
} as const;

// Written out: json-schema-to-ts does not infer the if/then branches. It describes a block that passed AUTH_PROFILE_SCHEMA.
/** An outbound auth profile block. */
export type AuthProfile =
  | { type: "basic"; username: string; password: string }
  | { type: "bearer"; token: string }
  | { type: "apiKey"; in: "header" | "query"; name: string; value: string }
  | {
      type: "oauth2";
      grant?: "clientCredentials";
      tokenUrl: string;
      clientId: string;
      clientSecret: string;
      scope?: string;
      audience?: string;
      clientAuth?: "basic" | "body";
    };
