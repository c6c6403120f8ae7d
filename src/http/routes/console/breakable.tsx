/** Characters of one unbroken run (no white space) between two offered line breaks. */
const RUN_CHARS = 64;

/**
 * `text` with a line break offered (`<wbr>`) every 64 characters of a run without white space, so a
 * reader's pasted token or minified line wraps within the screen. CSS's `overflow-wrap: anywhere` does
 * the same for short runs, but Chromium took 10 s and more to lay out one 60,000-character word with
 * it, in the console's font; with a break offered every 64 characters, a tenth of a second. Copying
 * the text copies it unchanged.
 */
export function Breakable(props: { text: string }) {
  // Split on the runs (a capturing group keeps them): odd parts are runs of exactly RUN_CHARS.
  const parts = props.text.split(new RegExp(`(\\S{${RUN_CHARS}})`, 'u'));
  if (parts.length === 1) return <>{props.text}</>;
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <>
            {part}
            <wbr />
          </>
        ) : (
          part
        ),
      )}
    </>
  );
}
