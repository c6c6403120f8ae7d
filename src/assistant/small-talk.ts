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
 * The words that make a message small talk, by language and kind (at least one must be there); the
 * language is the reply's (`ciao` and `grazie` get English's). Words that are small talk only beside
 * another ("morning", "tag", "night") are in `PAIRS`: alone, a docs reader typing `tag` or `night mode`
 * is asking about the docs.
 */
const WORDS: Record<ReplyLanguage, Partial<Record<SmallTalkKind, string>>> = {
  english: {
    greeting: 'hi hii hello helo hey heya hiya howdy yo greetings ciao',
    thanks: 'thanks thank thx ty tysm cheers appreciate appreciated grazie',
    goodbye: 'bye goodbye byebye cya farewell goodnight',
  },
  french: { greeting: 'bonjour bonsoir salut coucou', thanks: 'merci' },
  spanish: { greeting: 'hola', thanks: 'gracias', goodbye: 'adios adiós' },
  portuguese: { greeting: 'olá ola oi', thanks: 'obrigado obrigada', goodbye: 'tchau' },
  german: { greeting: 'hallo moin servus', thanks: 'danke', goodbye: 'tschüss tschuss' },
  chinese: { greeting: '你好 您好 大家好', thanks: '谢谢 谢谢你 谢谢您 多谢 感谢', goodbye: '再见 拜拜' },
  japanese: {
    greeting: 'こんにちは こんばんは おはようございます',
    thanks: 'ありがとう ありがとうございます どうも',
    goodbye: 'さようなら じゃあね',
  },
  korean: { greeting: '안녕하세요 안녕', thanks: '감사합니다 고맙습니다', goodbye: '안녕히' },
  arabic: { greeting: 'مرحبا أهلا اهلا سلام', thanks: 'شكرا', goodbye: 'وداعا' },
  hebrew: { greeting: 'שלום היי', thanks: 'תודה', goodbye: 'להתראות' },
};

/** Two-word greetings, thanks and goodbyes whose second word alone is an everyday word. */
const PAIRS: [pair: string, kind: SmallTalkKind, language: ReplyLanguage][] = [
  ['good morning', 'greeting', 'english'],
  ['good afternoon', 'greeting', 'english'],
  ['good evening', 'greeting', 'english'],
  ['good night', 'goodbye', 'english'],
  ['guten morgen', 'greeting', 'german'],
  ['guten tag', 'greeting', 'german'],
  ['vielen dank', 'thanks', 'german'],
  ['bom dia', 'greeting', 'portuguese'],
  ['boa tarde', 'greeting', 'portuguese'],
  ['boa noite', 'greeting', 'portuguese'],
  ['buenos días', 'greeting', 'spanish'],
  ['buenos dias', 'greeting', 'spanish'],
  ['buenas tardes', 'greeting', 'spanish'],
  ['buenas noches', 'greeting', 'spanish'],
  ['au revoir', 'goodbye', 'french'],
  ['السلام عليكم', 'greeting', 'arabic'],
  ['مع السلامة', 'goodbye', 'arabic'],
];

/** Words that may stand beside them ("hi there", "thanks a lot", "good morning everyone", "hi, how are you?"). */
const FILLER = new Set(
  `a again all and are bien beaucoup bonne bot buddy day days dear doing everybody everyone folks for friend
  friends good great guys have help how i is it journée later le lot lots many monde much muchas mucho muito
  nice ok okay schön see sehr so soon team the there this to today tous tout très va very vous ya you your ça
  가세요 계세요 جزيلا רבה`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Each small-talk word and pair: its kind and language. */
const SMALL_TALK = new Map<string, { kind: SmallTalkKind; language: ReplyLanguage }>();
for (const [language, kinds] of Object.entries(WORDS) as [
  ReplyLanguage,
  Partial<Record<SmallTalkKind, string>>,
][])
  for (const [kind, list] of Object.entries(kinds) as [SmallTalkKind, string][])
    for (const word of list.split(/\s+/)) if (word.length > 0) SMALL_TALK.set(word, { kind, language });
for (const [pair, kind, language] of PAIRS) SMALL_TALK.set(pair, { kind, language });

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
    const pair = i + 1 < all.length ? SMALL_TALK.get(`${word} ${all[i + 1]}`) : undefined;
    const own = pair ?? SMALL_TALK.get(word);
    if (pair !== undefined) i++;
    if (own !== undefined) kind ??= own.kind;
    else if (!FILLER.has(word)) return null;
  }
  return kind;
}

/** The language of the message's first greeting, thanks or goodbye not in English ("merci", "guten Tag"). */
export function smallTalkLanguage(message: string): ReplyLanguage | null {
  const all = words(message);
  for (let i = 0; i < all.length; i++) {
    const pair = i + 1 < all.length ? SMALL_TALK.get(`${all[i]} ${all[i + 1]}`) : undefined;
    const language = (pair ?? SMALL_TALK.get(all[i] as string))?.language;
    if (language !== undefined && language !== 'english') return language;
  }
  return null;
}
