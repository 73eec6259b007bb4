import { StringDecoder } from 'node:string_decoder';
import { Transform } from 'node:stream';
import type { Redactor } from './redact.js';

/** Text held back waiting for a newline before it goes through in part (a huge line). */
const MAX_HELD = 1024 * 1024;

/** Redacts a byte stream as it passes: whole lines, and a huge line in parts. */
export function redactingStream(redactor: Redactor): Transform {
  const decoder = new StringDecoder('utf8');
  let held = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      held += decoder.write(chunk);
      const lines = held.lastIndexOf('\n') + 1;
      if (lines > 0) {
        this.push(redactor.redact(held.slice(0, lines)));
        held = held.slice(lines);
      }
      if (held.length > MAX_HELD) {
        const { head, tail } = redactor.redactHead(held);
        this.push(head);
        held = tail;
      }
      done();
    },
    flush(done) {
      this.push(redactor.redact(held + decoder.end()));
      done();
    },
  });
}
