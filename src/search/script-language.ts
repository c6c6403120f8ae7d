/**
 * The language a text's script tells, for scripts that tell one (or a direction): kana is only
 * Japanese's; Han without kana, Chinese; Hangul, Korean; Arabic and Hebrew letters, right to left (Arabic
 * script may also be Persian or Urdu). Only when that script's letters (at least two) outnumber the Latin
 * ones: an English text quoting a word of Chinese is English. Null otherwise, Latin script included
 * (function words tell those apart: stop-words.ts `writtenIn`).
 */
export type ScriptLanguage = 'chinese' | 'japanese' | 'korean' | 'arabic' | 'hebrew';

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

export function scriptLanguage(text: string): ScriptLanguage | null {
  const latin = count(text, /\p{Script=Latin}/gu);
  const arabic = count(text, /\p{Script=Arabic}/gu);
  const hebrew = count(text, /\p{Script=Hebrew}/gu);
  if (arabic + hebrew >= 2 && arabic + hebrew > latin) return hebrew > arabic ? 'hebrew' : 'arabic';
  const kana = count(text, /[\p{Script=Hiragana}\p{Script=Katakana}]/gu);
  const hangul = count(text, /\p{Script=Hangul}/gu);
  const han = count(text, /\p{Script=Han}/gu);
  if (kana + han + hangul < 2 || kana + han + hangul <= latin) return null;
  if (hangul > kana + han) return 'korean';
  return kana > 0 ? 'japanese' : 'chinese';
}
