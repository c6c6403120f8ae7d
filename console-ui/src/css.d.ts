declare module '*.css' {
  const text: string;
  // biome-ignore lint/style/noDefaultExport: esbuild's text loader gives a CSS file as its default export
  export default text;
}
