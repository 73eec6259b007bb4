import { afterEach } from 'vitest';
import type { FakeAnthropic } from './fake-anthropic.js';
import type { FakeGemini } from './fake-gemini.js';
import type { FakeOpenAi } from './fake-openai.js';

/** The fake model APIs a test of several real CLIs starts. */
export interface FakeApis {
  anthropic?: FakeAnthropic;
  openai?: FakeOpenAi;
  google?: FakeGemini;
}

/** A holder for each test's fake APIs, every one closed after the test (call at the top). */
export function fakeApisClosedAfterEach(): FakeApis {
  const apis: FakeApis = {};
  afterEach(async () => {
    await apis.anthropic?.close();
    await apis.openai?.close();
    await apis.google?.close();
    delete apis.anthropic;
    delete apis.openai;
    delete apis.google;
  });
  return apis;
}
