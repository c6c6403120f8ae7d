/**
 * The built-in answerer's own words (its decline and its replies to small talk), in the languages the
 * search tells questions apart by (search/stop-words.ts). Its answers quote the docs, so they are in the
 * docs' language; a French reader whose question the docs do not cover should not be told so in English.
 * A real model answers in the reader's language itself (system-prompt.ts).
 */
import { writtenIn } from '../search/stop-words.ts';
import { type SmallTalkKind, smallTalkLanguage } from './small-talk.ts';

export type ReplyLanguage = 'english' | 'french' | 'spanish' | 'portuguese' | 'german';

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
};

const LANGUAGES = Object.keys(PHRASES) as ReplyLanguage[];

/**
 * The language the answerer's own words take for `question`: the one it is written in, told by its
 * function words as the search tells it, or by its greeting or thanks ("merci", "hola"); English when
 * neither tells (a question of keywords only).
 */
export function replyLanguage(question: string): ReplyLanguage {
  return (writtenIn(question, LANGUAGES) as ReplyLanguage | null) ?? smallTalkLanguage(question) ?? 'english';
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
