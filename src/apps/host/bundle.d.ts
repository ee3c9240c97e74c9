// host/dist/v1.txt: the built host SDK, imported as text (wrangler.toml `rules`).
declare module "*/host/dist/v1.txt" {
  const source: string;
  export default source;
}
