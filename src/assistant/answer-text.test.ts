import { describe, expect, it } from 'vitest';
import { namedTerms, questionTerms, splitUnits, terms } from './answer-text.ts';

describe('answer text', () => {
  it('namedTerms: capitalised words past the first, and identifiers', () => {
    expect([...namedTerms('Is there a Terraform provider for GraphQL and max_rpm in gpt-4o?')]).toEqual([
      'terraform',
      'graphql',
      'max',
      'rpm',
      'gpt',
      '4o',
    ]);
    expect([...namedTerms('How do I install the CLI?')]).toEqual(['cli']);
    expect(namedTerms('Install the docs').size).toBe(0);
  });

  it("questionTerms drops another language's function words, and English is unchanged", () => {
    expect(questionTerms('Comment connecter un dépôt hébergé sur Gitea ?')).toEqual(
      terms('connecter dépôt hébergé Gitea'),
    );
    expect(questionTerms('Posso usar o crewai com o Ollama?')).toEqual(terms('usar crewai Ollama'));
    expect(questionTerms('How do I connect a repository?')).toEqual(terms('connect repository'));
    // Question scaffolding of English: counts and contractions say nothing about the topic.
    expect(questionTerms("What are two ways? It isn't working")).toEqual(terms('ways working'));
  });

  it('does not quote navigation whose headings ran together', () => {
    const units = splitUnits(
      'IntroductionBenefits of Automated RoutingAdvantages of Using ClaudeDefining the Task\n\nClaude routes tickets by intent.',
    );
    expect(units.map((u) => u.text)).toEqual(['Claude routes tickets by intent.']);
    const rows = splitUnits(
      [
        'Streaming with SDKs Event types Ping events Error events Other events Delta types Text delta',
        '',
        'Prompt Engineering GuideOptimize performance through prompting.Claude CookbooksLearn with notebooks.',
        '',
        'Each stream ends with a message_stop event.',
      ].join('\n'),
    );
    expect(rows.map((u) => u.text)).toEqual(['Each stream ends with a message_stop event.']);
  });
});
