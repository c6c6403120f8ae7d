/**
 * The built-in answerer's own words (its decline and its replies to small talk), in the languages the
 * search tells questions apart by (search/stop-words.ts) and in Chinese, Japanese and Korean. Its answers quote the docs, so they are in the
 * docs' language; a French reader whose question the docs do not cover should not be told so in English.
 * A real model answers in the reader's language itself (system-prompt.ts).
 */
import { scriptLanguage } from '../search/script-language.ts';
import { writtenIn } from '../search/stop-words.ts';
import { type SmallTalkKind, smallTalkLanguage } from './small-talk.ts';

export type ReplyLanguage =
  | 'english'
  | 'french'
  | 'spanish'
  | 'portuguese'
  | 'german'
  | 'chinese'
  | 'japanese'
  | 'korean'
  | 'arabic'
  | 'hebrew';

export interface Phrases {
  /** The decline: the answer's first line when the docs do not cover the question. */
  noCoverage: string;
  /** Heads the list of the closest sections under the decline. */
  closestPages: string;
  smallTalk: Record<SmallTalkKind, string>;
}

export const PHRASES: Record<ReplyLanguage, Phrases> = {
  english: {
    noCoverage: "I couldn't find this in the documentation.",
    closestPages: 'The closest pages I found are:',
    smallTalk: {
      greeting:
        'Hello! I answer questions about this documentation. Ask me how to do something, what a setting does, or paste an error message.',
      thanks: "You're welcome! Ask me anything else about this documentation.",
      goodbye: 'Goodbye! Come back with any question about this documentation.',
    },
  },
  french: {
    noCoverage: "Je n'ai pas trouvé cela dans la documentation.",
    closestPages: "Les pages les plus proches que j'ai trouvées :",
    smallTalk: {
      greeting:
        "Bonjour ! Je réponds aux questions sur cette documentation. Demandez-moi comment faire quelque chose, à quoi sert un réglage, ou collez un message d'erreur.",
      thanks: 'Avec plaisir ! Posez-moi toute autre question sur cette documentation.',
      goodbye: 'Au revoir ! Revenez avec toute question sur cette documentation.',
    },
  },
  spanish: {
    noCoverage: 'No encontré esto en la documentación.',
    closestPages: 'Las páginas más cercanas que encontré son:',
    smallTalk: {
      greeting:
        '¡Hola! Respondo preguntas sobre esta documentación. Pregúntame cómo hacer algo, qué hace una opción o pega un mensaje de error.',
      thanks: '¡De nada! Pregúntame cualquier otra cosa sobre esta documentación.',
      goodbye: '¡Adiós! Vuelve con cualquier pregunta sobre esta documentación.',
    },
  },
  portuguese: {
    noCoverage: 'Não encontrei isso na documentação.',
    closestPages: 'As páginas mais próximas que encontrei são:',
    smallTalk: {
      greeting:
        'Olá! Respondo a perguntas sobre esta documentação. Pergunte-me como fazer algo, o que uma configuração faz ou cole uma mensagem de erro.',
      thanks: 'De nada! Pergunte-me qualquer outra coisa sobre esta documentação.',
      goodbye: 'Até logo! Volte com qualquer pergunta sobre esta documentação.',
    },
  },
  german: {
    noCoverage: 'Dazu habe ich in der Dokumentation nichts gefunden.',
    closestPages: 'Die passendsten Seiten, die ich gefunden habe:',
    smallTalk: {
      greeting:
        'Hallo! Ich beantworte Fragen zu dieser Dokumentation. Fragen Sie mich, wie etwas geht, was eine Einstellung bewirkt, oder fügen Sie eine Fehlermeldung ein.',
      thanks: 'Gern geschehen! Fragen Sie mich gern alles Weitere zu dieser Dokumentation.',
      goodbye: 'Auf Wiedersehen! Kommen Sie mit jeder Frage zu dieser Dokumentation wieder.',
    },
  },
  chinese: {
    noCoverage: '我在文档中没有找到相关内容。',
    closestPages: '最相关的页面：',
    smallTalk: {
      greeting:
        '你好！我可以回答关于本文档的问题。你可以问我如何做某件事、某个设置的作用，或者粘贴一条错误信息。',
      thanks: '不客气！关于本文档的其他问题，也欢迎随时问我。',
      goodbye: '再见！有任何关于本文档的问题，欢迎随时回来。',
    },
  },
  japanese: {
    noCoverage: 'ドキュメントにはこの内容が見つかりませんでした。',
    closestPages: '最も近いページ：',
    smallTalk: {
      greeting:
        'こんにちは！このドキュメントに関する質問にお答えします。操作の方法や設定の意味を聞いたり、エラーメッセージを貼り付けたりしてください。',
      thanks: 'どういたしまして！このドキュメントについて、ほかにも何でも聞いてください。',
      goodbye: 'さようなら！このドキュメントについて質問があれば、いつでもどうぞ。',
    },
  },
  korean: {
    noCoverage: '문서에서 이 내용을 찾지 못했습니다.',
    closestPages: '가장 가까운 페이지:',
    smallTalk: {
      greeting:
        '안녕하세요! 이 문서에 관한 질문에 답해 드립니다. 무언가를 하는 방법이나 설정의 역할을 묻거나 오류 메시지를 붙여 넣어 주세요.',
      thanks: '천만에요! 이 문서에 관해 다른 것도 무엇이든 물어보세요.',
      goodbye: '안녕히 가세요! 이 문서에 관한 질문이 있으면 언제든 다시 오세요.',
    },
  },
  arabic: {
    noCoverage: 'لم أجد هذا في الوثائق.',
    closestPages: 'أقرب الصفحات التي وجدتها:',
    smallTalk: {
      greeting:
        'مرحباً! أجيب عن الأسئلة حول هذه الوثائق. اسألني كيف تفعل شيئاً، أو ما وظيفة إعداد ما، أو الصق رسالة خطأ.',
      thanks: 'على الرحب والسعة! اسألني أي شيء آخر عن هذه الوثائق.',
      goodbye: 'إلى اللقاء! عُد بأي سؤال عن هذه الوثائق.',
    },
  },
  hebrew: {
    noCoverage: 'לא מצאתי את זה בתיעוד.',
    closestPages: 'הדפים הקרובים ביותר שמצאתי:',
    smallTalk: {
      greeting:
        'שלום! אני עונה על שאלות על התיעוד הזה. שאלו אותי איך לעשות משהו, מה עושה הגדרה מסוימת, או הדביקו הודעת שגיאה.',
      thanks: 'בשמחה! אפשר לשאול אותי כל דבר נוסף על התיעוד הזה.',
      goodbye: 'להתראות! חזרו עם כל שאלה על התיעוד הזה.',
    },
  },
};

const LANGUAGES = Object.keys(PHRASES) as ReplyLanguage[];

/** The languages told by their function words (search/stop-words.ts); the others by their script. */
const WORDED: readonly ReplyLanguage[] = ['english', 'french', 'spanish', 'portuguese', 'german'];

/**
 * The language the answerer's own words take for `question`: the one it is written in, told by its
 * function words as the search tells it, by its script (Chinese, Japanese, Korean), or by its greeting
 * or thanks ("merci", "hola"); English when none tells (a question of keywords only).
 */
export function replyLanguage(question: string): ReplyLanguage {
  return (
    (writtenIn(question, WORDED) as ReplyLanguage | null) ??
    scriptLanguage(question) ??
    smallTalkLanguage(question) ??
    'english'
  );
}

/** Whether `text` is one of the small-talk replies, in any language. */
export function isSmallTalkReply(text: string): boolean {
  return LANGUAGES.some((language) => Object.values(PHRASES[language].smallTalk).includes(text));
}

/**
 * Whether `text` is the answerer's decline in any language, or one cut short in its first words ("I
 * couldn", "Je n'ai"): an answer stopped there said nothing from the docs.
 */
export function isBuiltinDecline(text: string): boolean {
  const begun = text.trim();
  return LANGUAGES.some((language) => {
    const decline = PHRASES[language].noCoverage;
    return text.startsWith(decline) || (begun !== '' && decline.startsWith(begun));
  });
}
