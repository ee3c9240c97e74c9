import { describe, expect, it } from "vitest";
import {
  basicCredential,
  bodyPreview,
  cacheKey,
  exchangeFailed,
  exchangeForm,
  exchangeRequest,
  readTokenAnswer,
  reuseSeconds,
  shownTokenUrl,
  type ResolvedOAuth2,
} from "../../src/lib/outbound/oauth2";

const profile: ResolvedOAuth2 = {
  tokenUrl: "https://auth.example.com/oauth/token?tenant=x",
  clientId: "client one",
  clientSecret: "s3cr&t+/=",
  clientAuth: "basic",
};

describe("reuseSeconds", () => {
  it.each([
    [3600, 3540],
    [120, 60],
    [60, 30],
    [119, 60],
    [2, 1],
    [1.5, 1],
    [1, 0],
    [0, 0],
    [-5, 0],
    [undefined, 300],
    ["3600", 300],
    [null, 300],
    [Number.NaN, 300],
  ])("expires_in %s → %s s (0: used once)", (expiresIn, reuse) => {
    expect(reuseSeconds(expiresIn)).toBe(reuse);
  });
});

describe("the exchange request", () => {
  it("clientAuth basic: the form-encoded id and secret in a Basic header, no client_id in the form", () => {
    const req = exchangeRequest({ ...profile, scope: "read write", audience: "https://api.example.com" }, 15_000);
    expect(req).toEqual({
      url: "https://auth.example.com/oauth/token?tenant=x",
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
        Authorization: `Basic ${btoa("client+one:s3cr%26t%2B%2F%3D")}`,
      },
      body: "grant_type=client_credentials&scope=read+write&audience=https%3A%2F%2Fapi.example.com",
      redirect: "manual",
      timeoutMs: 15_000,
      maxResponseBytes: 65_536,
    });
    expect(basicCredential(profile)).toBe("Basic Y2xpZW50K29uZTpzM2NyJTI2dCUyQiUyRiUzRA==");
  });

  it("clientAuth body: client_id and client_secret as form fields, no Authorization header", () => {
    const req = exchangeRequest({ ...profile, clientAuth: "body" }, 300);
    expect(req.headers).toEqual({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" });
    expect(req.body).toBe("grant_type=client_credentials&client_id=client+one&client_secret=s3cr%26t%2B%2F%3D");
    expect(req.timeoutMs).toBe(300);
  });

  it("scope and audience only when set; an empty scope is still sent", () => {
    expect(exchangeForm(profile)).toBe("grant_type=client_credentials");
    expect(exchangeForm({ ...profile, scope: "" })).toBe("grant_type=client_credentials&scope=");
    expect(exchangeForm({ ...profile, audience: "aud" })).toBe("grant_type=client_credentials&audience=aud");
  });
});

describe("readTokenAnswer", () => {
  it("a 2xx with a non-empty string access_token is usable, with its reuse", () => {
    expect(readTokenAnswer(200, '{"access_token":"tok","expires_in":120}')).toEqual({ token: "tok", reuseSeconds: 60 });
    expect(readTokenAnswer(201, '{"access_token":"tok","expires_in":"120"}')).toEqual({ token: "tok", reuseSeconds: 300 });
    expect(readTokenAnswer(299, '{"access_token":"tok","expires_in":1}')).toEqual({ token: "tok", reuseSeconds: 0 });
  });

  it("anything else is not, with the reason for a 2xx", () => {
    expect(readTokenAnswer(401, '{"access_token":"tok"}')).toEqual({});
    expect(readTokenAnswer(500, "")).toEqual({});
    expect(readTokenAnswer(302, "")).toEqual({ reason: "the token endpoint redirected; redirects are not followed" });
    expect(readTokenAnswer(200, "access_token=tok")).toEqual({ reason: "the token endpoint's answer is not JSON" });
    for (const body of ['{"access_token":""}', '{"access_token":42}', '{"token":"tok"}', "[]", "null", '"tok"']) {
      expect(readTokenAnswer(200, body)).toEqual({ reason: "the token endpoint's answer has no access_token" });
    }
  });
});

describe("bodyPreview", () => {
  it("hides the client secret in every spelling it was sent in and every token value, then cuts to 200", () => {
    const echoed = `secret=${profile.clientSecret} form=s3cr%26t%2B%2F%3D basic=${basicCredential(profile)}`;
    expect(bodyPreview(echoed, profile)).toBe("secret=*** form=*** basic=Basic ***");
    const json = JSON.stringify({ access_token: "abc", refresh_token: "refresh-1234", id_token: 'i"d', note: "again refresh-1234" });
    expect(bodyPreview(json, profile)).toBe('{"access_token":"***","refresh_token":"***","id_token":"***","note":"again ***"}');
    expect(bodyPreview("error=x&access_token=zz&id_token=yy", profile)).toBe("error=x&access_token=***&id_token=***");
    const long = `${"x".repeat(195)}${profile.clientSecret}${"y".repeat(50)}`;
    expect(bodyPreview(long, profile)).toBe(`${"x".repeat(195)}***yy`);
    expect(bodyPreview("z".repeat(500), profile)).toHaveLength(200);
  });
});

describe("the exchange error", () => {
  it("is HTTP_AUTH_TOKEN_EXCHANGE_FAILED with origin and path only, reason when there is one", () => {
    expect(exchangeFailed(profile, 401, `{"error":"invalid_client","secret":"${profile.clientSecret}"}`)).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "The OAuth2 token exchange with https://auth.example.com/oauth/token failed (status 401)",
      details: {
        code: "HTTP_AUTH_TOKEN_EXCHANGE_FAILED",
        status: 401,
        token_url: "https://auth.example.com/oauth/token",
        body_preview: '{"error":"invalid_client","secret":"***"}',
      },
    });
    expect(exchangeFailed(profile, 0, "", "no answer").details).toEqual({
      code: "HTTP_AUTH_TOKEN_EXCHANGE_FAILED",
      status: 0,
      token_url: "https://auth.example.com/oauth/token",
      reason: "no answer",
      body_preview: "",
    });
    expect(shownTokenUrl("https://u:p@auth.example.com:8443/t#frag")).toBe("https://auth.example.com:8443/t");
    expect(shownTokenUrl("not a url")).toBe("");
  });
});

describe("cacheKey", () => {
  it("a SHA-256 that changes with each of the six fields and never carries the secret", async () => {
    const base = await cacheKey(profile);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await cacheKey({ ...profile })).toBe(base);
    const variants: ResolvedOAuth2[] = [
      { ...profile, tokenUrl: "https://auth.example.com/oauth/token2" },
      { ...profile, clientId: "client two" },
      { ...profile, clientSecret: "other" },
      { ...profile, scope: "read" },
      { ...profile, audience: "aud" },
      { ...profile, clientAuth: "body" },
      // An empty scope is sent, so it is not the same as none.
      { ...profile, scope: "" },
    ];
    const keys = await Promise.all(variants.map(cacheKey));
    expect(new Set([base, ...keys]).size).toBe(variants.length + 1);
  });
});
