// Vite's `?raw` imports: a file's text, for tests that hold the docs to the code.
declare module "*?raw" {
  const text: string;
  export default text;
}
