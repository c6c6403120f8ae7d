import { describe, expect, it } from 'vitest';
import { stopWordsFor, writtenIn } from './stop-words.ts';

describe('writtenIn', () => {
  const site = ['english', 'french', 'spanish'];

  it('tells the language of a question by its function words', () => {
    expect(writtenIn('How do I rotate the API key?', site)).toBe('english');
    expect(writtenIn('Comment faire pivoter la clé API ?', site)).toBe('french');
    expect(writtenIn('¿Cómo roto la clave de la API?', site)).toBe('spanish');
    expect(writtenIn("Qu'est-ce que le mode hors ligne", site)).toBe('french');
  });

  it('says nothing for keywords, a tie, or a site of one language', () => {
    expect(writtenIn('webhook retries', site)).toBeNull();
    // "de" is French and Spanish: it counts for neither.
    expect(writtenIn('API de webhooks', site)).toBeNull();
    expect(writtenIn('the clé le', ['english', 'french'])).toBeNull();
    expect(writtenIn('How do I rotate the API key?', ['english'])).toBeNull();
    expect(writtenIn('Wie drehe ich den Schlüssel', ['english', 'klingon'])).toBeNull();
  });

  it('leaves the stop lists as they were: English words stay stop words of every language', () => {
    expect(stopWordsFor('french').has('the')).toBe(true);
    expect(stopWordsFor('french').has('comment')).toBe(true);
  });
});
