// `snowball-stemmers` ships no type declarations; this covers the part the tokenizer uses.
declare module 'snowball-stemmers' {
  interface Stemmer {
    stem(word: string): string;
  }
  const snowball: {
    newStemmer(algorithm: string): Stemmer;
    algorithms(): string[];
  };
  export = snowball;
}
