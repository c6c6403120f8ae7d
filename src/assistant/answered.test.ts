import { describe, expect, it } from 'vitest';
import { declines, isAnswered } from './answered.ts';
import { NO_COVERAGE_MESSAGE } from './builtin-answerer.ts';
import { isWeakRetrieval, MIN_RETRIEVAL_STRENGTH, retrievalStrength } from './retrieval-strength.ts';

const strong = MIN_RETRIEVAL_STRENGTH + 0.1;
const weak = MIN_RETRIEVAL_STRENGTH - 0.1;

describe('the answered rule', () => {
  it('answers: a complete, non-empty answer that does not decline, on strong retrieval', () => {
    expect(
      isAnswered({ status: 'complete', text: 'Run `docent ingest` [1].', retrievalStrength: strong }),
    ).toBe(true);
  });

  it('does not: empty or failed answers, nor one stopped before its first word', () => {
    expect(isAnswered({ status: 'complete', text: '  ', retrievalStrength: strong })).toBe(false);
    expect(isAnswered({ status: 'error', text: 'Run', retrievalStrength: strong })).toBe(false);
    expect(isAnswered({ status: 'aborted', text: '', retrievalStrength: strong })).toBe(false);
  });

  it("does not: an answer the provider's content filter stopped, whatever it had said", () => {
    const filtered = { status: 'complete', text: 'Run `docent', retrievalStrength: strong } as const;
    expect(isAnswered({ ...filtered, finishReason: 'content-filter' })).toBe(false);
    expect(isAnswered({ ...filtered, finishReason: 'length' })).toBe(true);
  });

  it('judges an answer its reader stopped by what it had said: stopping is no gap in the docs', () => {
    expect(isAnswered({ status: 'aborted', text: 'Run `docent', retrievalStrength: strong })).toBe(true);
    expect(isAnswered({ status: 'aborted', text: 'Run `docent', retrievalStrength: 0.1 })).toBe(false);
    expect(
      isAnswered({ status: 'aborted', text: "I couldn't find this in the", retrievalStrength: strong }),
    ).toBe(false);
    // Cut in the decline's first words.
    expect(isAnswered({ status: 'aborted', text: 'I couldn', retrievalStrength: strong })).toBe(false);
  });

  it("does not: the built-in answerer's no-coverage answer, and a model saying the docs do not cover it", () => {
    const builtin = `${NO_COVERAGE_MESSAGE}\n\nThe closest pages I found are:\n- [CLI](https://x/cli)`;
    expect(isAnswered({ status: 'complete', text: builtin, retrievalStrength: strong })).toBe(false);
    expect(declines("The documentation doesn't cover single sign-on.")).toBe(true);
    expect(declines('Sorry, I could not find anything about SSO in the docs.')).toBe(true);
    expect(declines('The excerpts do not mention Kubernetes.')).toBe(true);
    expect(declines('Use `docent keys create` [1]. The docs also cover revoking keys.')).toBe(false);
    // Only the opening counts: a long answer that mentions a limit of the docs at its end still answered.
    expect(
      declines(`${'Run the ingest command with the folder. '.repeat(8)}The docs do not cover Windows.`),
    ).toBe(false);
  });

  it.each([
    "Je n'ai pas trouvé d'information sur le SSO dans la documentation.",
    'La documentation ne couvre pas la connexion unique.',
    'No encontré nada sobre SSO en la documentación.',
    'La documentación no menciona Kubernetes.',
    'Não encontrei nada sobre SSO na documentação.',
    'A documentação não cobre o login único.',
    'Dazu habe ich in der Dokumentation nichts gefunden.',
    'Ich konnte in der Dokumentation nichts zu SSO finden.',
    'Die Dokumentation deckt Single Sign-on leider nicht ab.',
  ])("a model declining in the reader's language: %j", (text) => {
    expect(declines(text)).toBe(true);
    expect(isAnswered({ status: 'complete', text, retrievalStrength: strong })).toBe(false);
  });

  it.each([
    'Lancez `docent ingest` avec le dossier [1]. La documentation couvre aussi les clés.',
    'Ejecuta `docent ingest` con la carpeta [1]; no necesitas reiniciar.',
    'Execute `docent ingest` com a pasta [1].',
    'Führen Sie `docent ingest` mit dem Ordner aus [1]; ein Neustart ist nicht nötig.',
    // An error message's own words are no decline.
    'Wenn die Datei nicht gefunden wird, prüfen Sie den Pfad in `DOCENT_DOCS_DIR` [1].',
  ])('an answer in another language that answers: %j', (text) => {
    expect(declines(text)).toBe(false);
  });

  it('does not: an answer written from weak retrieval', () => {
    expect(isAnswered({ status: 'complete', text: 'Probably set X [1].', retrievalStrength: weak })).toBe(
      false,
    );
  });

  it('takes the strongest retrieved chunk as the retrieval strength (0 with none)', () => {
    expect(retrievalStrength([])).toBe(0);
    expect(retrievalStrength([{ coverage: 0.2 }, { coverage: 0.8 }, { coverage: 0.5 }])).toBe(0.8);
  });

  it('calls retrieval weak with nothing retrieved or the best chunk below the bar; unknown coverage is not weak', () => {
    expect(isWeakRetrieval([])).toBe(true);
    expect(isWeakRetrieval([{ coverage: weak }, { coverage: 0.1 }])).toBe(true);
    expect(isWeakRetrieval([{ coverage: 0.1 }, { coverage: MIN_RETRIEVAL_STRENGTH }])).toBe(false);
    expect(isWeakRetrieval([{}, {}])).toBe(false);
    expect(isWeakRetrieval([{}, { coverage: weak }])).toBe(true);
  });
});
