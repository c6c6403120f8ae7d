/**
 * Small talk: a message that is only a greeting, a thank-you or a goodbye ("hi there", "thanks!",
 * "merci beaucoup", "bye"). Readers type these into a docs widget; searching the docs for them finds
 * nonsense (`hi` matches `hi_res`), so the built-in answerer replies with a fixed line instead. A real
 * model answers them itself. Recognised by words only, in the docs' usual languages, never by meaning:
 * one word outside these lists ("hi, how do I install?") makes it a question.
 */

import { words } from './answer-text.ts';
import type { ReplyLanguage } from './answerer-phrases.ts';

export type SmallTalkKind = 'greeting' | 'thanks' | 'goodbye';

/** Longest message (in words) still taken as small talk: "hello, good morning to you all" is 6. */
export const MAX_SMALL_TALK_WORDS = 8;

/**
 * The words that make a message small talk of a kind (at least one must be there). Words that are
 * small talk only beside another ("morning", "tag", "night") are in `PAIRS`: alone, a docs reader
 * typing `tag` or `night mode` is asking about the docs.
 */
const KIND_WORDS: Record<SmallTalkKind, string> = {
  greeting: `hi hii hello helo hey heya hiya howdy yo greetings hallo hola bonjour bonsoir salut coucou ciao
    olá ola oi moin servus 你好 您好 大家好 こんにちは こんばんは おはようございます 안녕하세요 안녕
    مرحبا أهلا اهلا سلام שלום היי`,
  thanks: `thanks thank thx ty tysm cheers merci gracias obrigado obrigada danke grazie appreciate appreciated
    谢谢 谢谢你 谢谢您 多谢 感谢 ありがとう ありがとうございます どうも 감사합니다 고맙습니다 شكرا תודה`,
  goodbye: `bye goodbye byebye cya adios adiós tchau tschüss tschuss farewell goodnight 再见 拜拜 さようなら
    じゃあね 안녕히 وداعا להתראות`,
};

/** Two-word greetings, thanks and goodbyes whose second word alone is an everyday word. */
const PAIRS = new Map<string, SmallTalkKind>([
  ['good morning', 'greeting'],
  ['good afternoon', 'greeting'],
  ['good evening', 'greeting'],
  ['guten morgen', 'greeting'],
  ['guten tag', 'greeting'],
  ['bom dia', 'greeting'],
  ['boa tarde', 'greeting'],
  ['boa noite', 'greeting'],
  ['buenos días', 'greeting'],
  ['buenos dias', 'greeting'],
  ['buenas tardes', 'greeting'],
  ['buenas noches', 'greeting'],
  ['vielen dank', 'thanks'],
  ['good night', 'goodbye'],
  ['au revoir', 'goodbye'],
  ['السلام عليكم', 'greeting'],
  ['مع السلامة', 'goodbye'],
]);

/** Words that may stand beside them ("hi there", "thanks a lot", "good morning everyone", "hi, how are you?"). */
const FILLER = new Set(
  `a again all and are bien beaucoup bonne bot buddy day days dear doing everybody everyone folks for friend
  friends good great guys have help how i is it journée later le lot lots many monde much muchas mucho muito
  nice ok okay schön see sehr so soon team the there this to today tous tout très va very vous ya you your ça
  가세요 계세요 جزيلا רבה`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

const KINDS = new Map<string, SmallTalkKind>();
for (const [kind, list] of Object.entries(KIND_WORDS) as [SmallTalkKind, string][])
  for (const word of list.split(/\s+/)) if (word.length > 0) KINDS.set(word, kind);

/** The language of the small-talk words that are not English (for the reply's language). */
const WORD_LANGUAGES: Record<Exclude<ReplyLanguage, 'english'>, string> = {
  french: 'bonjour bonsoir salut coucou merci',
  spanish: 'hola gracias adios adiós',
  portuguese: 'olá ola oi obrigado obrigada tchau',
  german: 'hallo moin servus danke tschüss tschuss',
  chinese: '你好 您好 大家好 谢谢 谢谢你 谢谢您 多谢 感谢 再见 拜拜',
  japanese:
    'こんにちは こんばんは おはようございます ありがとう ありがとうございます どうも さようなら じゃあね',
  korean: '안녕하세요 안녕 감사합니다 고맙습니다 안녕히',
  arabic: 'مرحبا أهلا اهلا سلام شكرا وداعا',
  hebrew: 'שלום היי תודה להתראות',
};
const PAIR_LANGUAGES: Record<string, ReplyLanguage> = {
  'guten morgen': 'german',
  'guten tag': 'german',
  'vielen dank': 'german',
  'bom dia': 'portuguese',
  'boa tarde': 'portuguese',
  'boa noite': 'portuguese',
  'buenos días': 'spanish',
  'buenos dias': 'spanish',
  'buenas tardes': 'spanish',
  'buenas noches': 'spanish',
  'au revoir': 'french',
  'السلام عليكم': 'arabic',
  'مع السلامة': 'arabic',
};
const LANGUAGE_OF = new Map<string, ReplyLanguage>(Object.entries(PAIR_LANGUAGES));
for (const [language, list] of Object.entries(WORD_LANGUAGES) as [ReplyLanguage, string][])
  for (const word of list.split(/\s+/)) if (word.length > 0) LANGUAGE_OF.set(word, language);

/**
 * The kind of small talk `message` is, or null when it is (also) a question. The first kind word
 * decides ("thanks, bye" is thanks).
 */
export function smallTalk(message: string): SmallTalkKind | null {
  const all = words(message);
  if (all.length === 0 || all.length > MAX_SMALL_TALK_WORDS) return null;
  let kind: SmallTalkKind | null = null;
  for (let i = 0; i < all.length; i++) {
    const word = all[i] as string;
    const pair = i + 1 < all.length ? PAIRS.get(`${word} ${all[i + 1]}`) : undefined;
    const own = pair ?? KINDS.get(word);
    if (pair !== undefined) i++;
    if (own !== undefined) kind ??= own;
    else if (!FILLER.has(word)) return null;
  }
  return kind;
}

/** The language of the message's first greeting, thanks or goodbye not in English ("merci", "guten Tag"). */
export function smallTalkLanguage(message: string): ReplyLanguage | null {
  const all = words(message);
  for (let i = 0; i < all.length; i++) {
    const pair = i + 1 < all.length ? LANGUAGE_OF.get(`${all[i]} ${all[i + 1]}`) : undefined;
    const language = pair ?? LANGUAGE_OF.get(all[i] as string);
    if (language !== undefined) return language;
  }
  return null;
}
