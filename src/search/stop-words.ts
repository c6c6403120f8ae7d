/**
 * Stop words, checked on the lowercased word before stemming. Questions are phrased in full sentences
 * ("How can I …", "What are some …"), so function words and question scaffolding are dropped: they match
 * almost every chunk and only add noise to BM25 sums. Content words that look generic in docs ("use",
 * "file", "set") are kept: IDF already down-weights them and they sometimes carry the answer.
 */
const ENGLISH = `a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't during each either etc few for from further had hadn't has hasn't have haven't having he her here
hers herself him himself his how however i i'm if in into is isn't it it's its itself just let let's me
might more most must mustn't my myself no nor not of off on once only or other ought our ours ourselves out
over own same shall she should shouldn't so some such than that that's the their theirs them themselves then
there there's these they this those through thus to too under until up upon us very via was wasn't we were
weren't what what's when where where's whether which while who whom whose why will with within without won't
would wouldn't yes yet you you're your yours yourself yourselves e.g i.e`;

const SPANISH = `a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el
ella ellas ellos en entre era es esa esas ese eso esos esta estas este esto estos fue ha hay la las le les
lo los mas me mi mis mucho muy nada ni no nos o os otra otro para pero poco por porque que quien se sea ser
si sin sobre su sus tambien te tiene tu tus un una unas uno unos y ya cómo qué cuál dónde más también`;

const PORTUGUESE = `a ao aos as até com como da das de dela dele deles do dos e ela elas ele eles em entre era
essa essas esse esses esta estas este estes eu foi há isso isto já la lhe mais mas me mesmo meu minha muito
na nas nem no nos nós num numa o os ou para pela pelas pelo pelos por qual quando que quem se sem ser seu
seus sua suas também te tem um uma umas uns você vocês à às é onde está são como`;

const FRENCH = `à au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais me même
mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un une
vos votre vous c d j l m n s t y été est sont comment quoi quel quelle quels quelles`;

const GERMAN = `aber alle als also am an auch auf aus bei bin bis bist da damit dann das dass dein deine dem den
der des dich die dir doch du ein eine einem einen einer eines er es für hat hatte ich ihr ihre im in ist ja
kann man mich mir mit muss nach nicht noch nur ob oder sein seine sich sie sind so über um und uns unser von
vor war was wie wir wird wo zu zum zur wie warum welche welcher welches`;

/**
 * Question words typed with two letters swapped ("waht models are supported", "hwo do I …"). Most are
 * too short for typo matching (search-index.ts tries words of 5 letters or more), so each was a word no
 * page has, the rarest of all: "waht models are supported" ranked the repository-instructions section
 * above "Choose a model". Stop words of every list, as the contractions below are. Adding them moved
 * analyze.ts `ANALYZER_VERSION` to 8.
 */
export const SWAPPED_QUESTION_WORDS = 'waht whta hwo wehre whcih';

/**
 * Contractions typed without their apostrophe ("whats the default port", "it doesnt start"): readers
 * write them so, and each would otherwise be a word no page has, the rarest of all, which makes a plain
 * question look like one the docs do not cover. Stop words of every list, like the spelt-out forms. Not
 * "dont" nor "im", function words of French and German ("dont", "im Ordner"). Adding them moved
 * analyze.ts `ANALYZER_VERSION` to 2: analyses stored before hold them and the word pairs around them.
 */
export const UNMARKED_CONTRACTIONS = `whats hows wheres whos whens whys thats theres doesnt didnt cant isnt
arent wasnt werent wont wouldnt shouldnt couldnt hasnt havent hadnt ive youre theyre`;

/**
 * Chinese and Japanese function words and question words, as Intl.Segmenter cuts them ("配置文件在哪里" →
 * 配置 文件 在 哪里): in no language's list otherwise, a question's 在哪里 or 是什么 counted as words the
 * docs must have, and its coverage (the retrieval strength) fell below the bar. In every list: they are
 * no word of another language, and Chinese docs quote English as English docs quote Chinese. Adding
 * them moved analyze.ts `ANALYZER_VERSION` to 4 (folding ß to ss, to 5).
 */
export const CJK_FUNCTION_WORDS = `的 了 在 是 吗 呢 吧 啊 和 与 或 我 你 您 他 她 它 们 这 那 个 有 也 都 就 要 会 能 把
被 给 对 从 到 为 让 将 请 并 而 及 等 该 如何 怎么 怎样 怎么样 什么 哪里 哪儿 哪个 为什么 是否 可以 能否 我们 你们 如果
の は が を に で と も や か な へ です ます ですか どう どうやって どこ いつ なぜ 何 ください する します`;

/**
 * Arabic and Hebrew function and question words (كيف, ما, في; איך, מה, של): as CJK_FUNCTION_WORDS, in
 * every list, since no other language writes them. Adding them moved `ANALYZER_VERSION` to 6.
 */
export const RTL_FUNCTION_WORDS = `في من إلى على عن مع هل كيف ما ماذا متى أين لماذا كم هذا هذه ذلك التي الذي أن إن أو ثم
لا لم لن قد هو هي يمكن يمكنني أريد של את על עם אל גם או אם כי לא זה זו זאת הוא היא איך מה מתי איפה למה האם יש אפשר אני`;

const toSet = (...lists: string[]): ReadonlySet<string> =>
  new Set(lists.flatMap((words) => words.split(/\s+/)).filter(Boolean));

/** Words of no one language's list that every list holds. */
const IN_EVERY_LIST = [UNMARKED_CONTRACTIONS, SWAPPED_QUESTION_WORDS, CJK_FUNCTION_WORDS, RTL_FUNCTION_WORDS];

const ENGLISH_SET = toSet(ENGLISH, ...IN_EVERY_LIST);

const BY_STEMMER: Record<string, ReadonlySet<string>> = {
  english: ENGLISH_SET,
  spanish: toSet(SPANISH, ENGLISH, ...IN_EVERY_LIST),
  portuguese: toSet(PORTUGUESE, ENGLISH, ...IN_EVERY_LIST),
  french: toSet(FRENCH, ENGLISH, ...IN_EVERY_LIST),
  german: toSet(GERMAN, ENGLISH, ...IN_EVERY_LIST),
};

/**
 * The stop list for a stemmer name. Non-English lists include the English words, because non-English
 * docs quote English UI and code; a language without its own list (or without stemming) gets English's.
 */
export const stopWordsFor = (stemmer: string | null): ReadonlySet<string> =>
  (stemmer === null ? undefined : BY_STEMMER[stemmer]) ?? ENGLISH_SET;

/** Each language's own function words (without the English ones the stop lists add), by stemmer name. */
const OWN_WORDS: Record<string, ReadonlySet<string>> = {
  english: toSet(ENGLISH, UNMARKED_CONTRACTIONS, SWAPPED_QUESTION_WORDS),
  spanish: toSet(SPANISH),
  portuguese: toSet(PORTUGUESE),
  french: toSet(FRENCH),
  german: toSet(GERMAN),
};

/**
 * Function words a language needs in a question to be told: one alone is too easily a keyword (`ES
 * modules`, German's `es`). Measured on mintlify-docs and crewai-docs without their filters: one word
 * told more questions right (hit@1 0.813 and 0.820 against 0.807 and 0.787), two err less on keywords.
 */
const MIN_FUNCTION_WORDS = 2;

/** Words of a question, as written between spaces and punctuation. */
const TOKEN = /[^\s,;:!?¿¡()[\]{}"«»“”]+/gu;
/** A token that is part of an identifier, a version or a path (`s3`, `eu-west-1`, `c++`, `a.b`): no word. */
const IDENTIFIER = /[\p{N}_+./\\@#$%&=<>*`|~^]/u;
const LETTERS = /^[\p{L}\p{M}]+$/u;

/**
 * The function words of a question: the letter-only pieces of its tokens, split at hyphens and
 * apostrophes (`qu'est-ce` → `qu`, `est`, `ce`), two letters or more; tokens holding digits or symbols
 * are identifiers, and one letter (`c'est`'s `c`, `s3`'s `s`) is too little to tell a language by.
 */
function functionWordsOf(question: string): string[] {
  const words: string[] = [];
  for (const [token] of question.toLowerCase().replace(/[’‘]/g, "'").matchAll(TOKEN)) {
    if (IDENTIFIER.test(token)) continue;
    const whole = token.replace(/^[-'.]+|[-'.]+$/g, '');
    // English contractions are listed whole (`can't`, `don't`).
    if (ENGLISH_SET.has(whole)) {
      words.push(whole);
      continue;
    }
    for (const piece of whole.split(/[-']+/)) if (piece.length >= 2 && LETTERS.test(piece)) words.push(piece);
  }
  return words;
}

/**
 * The stemmer language a question is written in, told by its function words ("comment", "le" → French;
 * "how", "the" → English), among `candidates` (stemmer names; those without a word list are never
 * told); null when no candidate has `MIN_FUNCTION_WORDS` words and more than any other (a question of
 * keywords only, say). A word two candidates share counts for neither.
 */
export const writtenIn = (question: string, candidates: readonly string[]): string | null => {
  const lists = candidates.flatMap((name) => {
    const own = OWN_WORDS[name];
    return own === undefined ? [] : [{ name, own }];
  });
  if (lists.length === 0) return null;
  const counts = new Map<string, number>();
  for (const word of functionWordsOf(question)) {
    const having = lists.filter((l) => l.own.has(word));
    if (having.length === 1) {
      const name = (having[0] as { name: string }).name;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (first === undefined || first[1] < MIN_FUNCTION_WORDS) return null;
  return second === undefined || first[1] > second[1] ? first[0] : null;
};
