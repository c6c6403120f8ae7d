/**
 * JSON text of a value from a dereferenced OpenAPI document, cut after `maxChars` characters. Such a
 * value may be a cycle (`default: {$ref: '#/components/schemas/Self'}`), on which JSON.stringify throws,
 * or a small document whose references share objects level after level, which JSON.stringify writes out
 * in full: 2 references to one object per level, 40 levels, is 2^40 copies. Writing stops once the text
 * is long enough, so the work is bounded by `maxChars` whatever the value. For an ordinary value the
 * text is JSON.stringify's (same spacing, same order), cut.
 */
export const boundedJson = (value: unknown, maxChars: number, indent = 0): string => {
  const out: string[] = [];
  let length = 0;
  const write = (text: string): boolean => {
    out.push(text);
    length += text.length;
    return length <= maxChars;
  };
  const ancestors = new Set<object>();
  // False once the text is long enough: every caller stops writing.
  const visit = (node: unknown, depth: number): boolean => {
    if (typeof node !== 'object' || node === null) return write(JSON.stringify(node) ?? 'null');
    // A value inside itself has no JSON form; it is named, and its cycle ends here.
    if (ancestors.has(node)) return write('"(recursive)"');
    const entries: [string | null, unknown][] = Array.isArray(node)
      ? node.map((item) => [null, item])
      : Object.entries(node).filter(([, v]) => v !== undefined && typeof v !== 'function');
    const [open, close] = Array.isArray(node) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return write(`${open}${close}`);
    ancestors.add(node);
    const pad = indent > 0 ? `\n${' '.repeat(indent * (depth + 1))}` : '';
    if (!write(open)) return false;
    for (const [index, [key, item]] of entries.entries()) {
      if (!write(`${index > 0 ? ',' : ''}${pad}`)) return false;
      if (key !== null && !write(`${JSON.stringify(key)}:${indent > 0 ? ' ' : ''}`)) return false;
      if (!visit(item, depth + 1)) return false;
    }
    ancestors.delete(node);
    return write(`${indent > 0 ? `\n${' '.repeat(indent * depth)}` : ''}${close}`);
  };
  visit(value, 0);
  const text = out.join('');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
};
