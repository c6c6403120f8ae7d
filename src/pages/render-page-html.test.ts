import { describe, expect, it } from 'vitest';
import { renderPageHtml } from './render-page-html.ts';
import type { StoredPage } from './stored-page.ts';

const page = (title: string, text: string): StoredPage => ({
  path: 'p',
  title,
  description: null,
  contentHash: 'h',
  sections: [{ anchor: null, headings: [], text }],
});
const htmlTag = (p: StoredPage): string =>
  /<html[^>]*>/.exec(renderPageHtml(p, { pagesBase: '/sites/x/pages/' }))?.[0] ?? '';

describe("the page view says the page's direction and language", () => {
  it('right to left for an Arabic or Hebrew page, though it quotes Latin code', () => {
    expect(
      htmlTag(page('البدء السريع', 'افتح لوحة التحكم، ثم انقر على «إنشاء مفتاح». `tool login --key`')),
    ).toBe('<html dir="rtl">');
    expect(htmlTag(page('התחלה מהירה', 'פתחו את לוח הבקרה ולחצו על "יצירת מפתח API".'))).toBe(
      '<html lang="he" dir="rtl">',
    );
  });

  it('Chinese, Japanese and Korean pages say their language; a Latin-script page claims none', () => {
    expect(htmlTag(page('快速入门', '打开控制台，点击“创建密钥”。'))).toBe('<html lang="zh">');
    expect(htmlTag(page('はじめに', 'ダッシュボードを開き、「キーを作成」をクリックします。'))).toBe(
      '<html lang="ja">',
    );
    expect(htmlTag(page('시작하기', '대시보드를 열고 키 만들기를 누르세요.'))).toBe('<html lang="ko">');
    expect(
      htmlTag(page('Installation', 'Ouvrez le tableau de bord, puis cliquez sur « Créer une clé ».')),
    ).toBe('<html>');
  });
});

describe('code on a right-to-left page', () => {
  it('stays left to right', () => {
    const html = renderPageHtml(page('البدء السريع', 'افتح لوحة التحكم.'), { pagesBase: '/sites/x/pages/' });
    expect(html).toContain('pre{direction:ltr;text-align:left}');
  });
});
