/** How a row another tenant shares with the caller's is marked in an answer; the caller's own rows carry no `source_type`. */
export const SHARED = { source_type: "shared" } as const;
