/**
 * The first `max` UTF-16 code units of `text`, one fewer when the last would be the first half of a
 * surrogate pair (an emoji, a rarer CJK character): half a character is shown as "�".
 */
export function textStart(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
