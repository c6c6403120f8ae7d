import { describe, expect, it } from 'vitest';
import { stopWordsFor, writtenIn } from './stop-words.ts';

describe('writtenIn', () => {
  const site = ['english', 'french', 'spanish'];

  it('tells the language of a question by its function words', () => {
    expect(writtenIn('How do I rotate the API key?', site)).toBe('english');
    expect(writtenIn("Comment faire pivoter la clé de l'API avec le tableau de bord ?", site)).toBe('french');
    expect(writtenIn('¿Cómo roto la clave de la API en el panel?', site)).toBe('spanish');
    expect(writtenIn("Qu'est-ce que le mode hors ligne", site)).toBe('french');
    expect(writtenIn('Can’t find the c++ compiler', site)).toBe('english');
    // A site whose other language has no word list (Japanese) still tells English from it.
    expect(writtenIn('How do I rotate the API key?', ['english'])).toBe('english');
  });

  it('says nothing for keywords, identifiers, a single word, or a tie', () => {
    expect(writtenIn('webhook retries', site)).toBeNull();
    // "de" is French and Spanish: it counts for neither.
    expect(writtenIn('API de webhooks', site)).toBeNull();
    expect(writtenIn('the clé le', ['english', 'french'])).toBeNull();
    // Pieces of identifiers are not words: s3's s, eu-west-1's eu, c++'s c.
    expect(writtenIn('S3 bucket permissions', ['english', 'french'])).toBeNull();
    expect(writtenIn('AWS eu-west-1 region', ['english', 'portuguese'])).toBeNull();
    // One function word is too easily a keyword (German's "es").
    expect(writtenIn('ES module import', ['english', 'german'])).toBeNull();
    expect(writtenIn('Comment installer ?', ['english', 'french'])).toBeNull();
    expect(writtenIn('Wie drehe ich den Schlüssel', ['english', 'klingon'])).toBeNull();
  });

  it('counts no French or German function word as English ("dont", "im")', () => {
    // Were they English contractions, each would tip its question to English.
    expect(writtenIn('quels paramètres dont on a besoin', ['english', 'french'])).not.toBe('english');
    expect(writtenIn('Datei im Ordner', ['english', 'german'])).not.toBe('english');
    expect(writtenIn('whats the default port', ['english', 'french'])).toBe('english');
  });

  it('drops question words typed with two letters swapped ("waht models are supported")', () => {
    for (const word of ['waht', 'whta', 'hwo', 'wehre', 'whcih'])
      expect(stopWordsFor('english').has(word)).toBe(true);
    expect(stopWordsFor('german').has('waht')).toBe(true);
  });

  it('keeps "down", which says what went wrong ("ollama is down", "the server went down")', () => {
    // Dropped, "what happens when ollama is down" searched "ollama" alone and found the embeddings guide.
    expect(stopWordsFor('english').has('down')).toBe(false);
    expect(stopWordsFor('english').has('during')).toBe(true);
  });

  it('leaves the stop lists as they were: English words stay stop words of every language', () => {
    expect(stopWordsFor('french').has('the')).toBe(true);
    expect(stopWordsFor('french').has('comment')).toBe(true);
  });
});
