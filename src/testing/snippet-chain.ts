/**
 * Snippet files `snippets/s<first>.mdx` … that each import the next and include it `includesOfNext`
 * times before their own `body`: a chain (1) or an exponential fan-out (more), the hostile shape the
 * snippet limits exist for. The page that starts it imports `snippets/s<first>.mdx` itself.
 */
export function snippetChain(options: {
  first?: number;
  count: number;
  includesOfNext: number;
  body: (i: number) => string;
}): Record<string, string> {
  const first = options.first ?? 0;
  const last = first + options.count - 1;
  const files: Record<string, string> = {};
  for (let i = first; i <= last; i++) {
    const next =
      i < last
        ? `import Next from '/snippets/s${i + 1}.mdx';\n\n${'<Next />\n\n'.repeat(options.includesOfNext)}`
        : '';
    files[`snippets/s${i}.mdx`] = `${next}${options.body(i)}`;
  }
  return files;
}
