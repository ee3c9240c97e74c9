// Request and response schemas of auth: the routes validate with them and
// document them, and service input types are derived from them.

/** The token request as documented: the client's credentials are body fields only when no Basic header carries them. */
export const tokenRequest = {
  type: "object",
  required: ["grant_type"],
  properties: {
    grant_type: { const: "client_credentials" },
    client_id: { type: "string", minLength: 1, maxLength: 200, description: "Required unless the client authenticates with Authorization: Basic" },
    client_secret: {
      type: "string",
      minLength: 1,
      maxLength: 500,
      description: "Required unless the client authenticates with Authorization: Basic; never together with it",
    },
    scope: { type: "string", description: "Accepted and ignored" },
  },
} as const;

/** Without a Basic header the body must name and authenticate the client. */
export const bodyClientRequest = { ...tokenRequest, required: ["grant_type", "client_id", "client_secret"] } as const;
