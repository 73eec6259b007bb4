/** One line of `ralph doctor`: how a check came out, and what it found. */
export interface Check {
  verdict: 'ok' | 'warn' | 'FAIL';
  name: string;
  detail: string;
}
