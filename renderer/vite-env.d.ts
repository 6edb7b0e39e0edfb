// Types of Vite's `?url` imports (an asset's URL as a string), used for pdf.js's worker.
declare module '*?url' {
  const url: string;
  export default url;
}
