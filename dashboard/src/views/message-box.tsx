import { useState } from 'preact/hooks';
import { ApiError, post } from '../api.js';

/**
 * A message to one item's agent, as `ralph say`: a running session resumes with it at once,
 * an item that waits gets it in its next session, an item that asked a question is answered.
 */
export function MessageBox({ itemId, asking }: { itemId: string; asking?: string }) {
  const [text, setText] = useState('');
  const [said, setSaid] = useState<{ ok: boolean; text: string }>();
  const [sending, setSending] = useState(false);
  const send = async () => {
    setSending(true);
    try {
      const answer = await post<{ text: string }>(`/items/${encodeURIComponent(itemId)}/messages`, {
        text,
      });
      setSaid({ ok: true, text: answer.text });
      setText('');
    } catch (error) {
      setSaid({ ok: false, text: error instanceof ApiError ? error.message : String(error) });
    } finally {
      setSending(false);
    }
  };
  return (
    <form
      class="message-box"
      data-item={itemId}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {asking !== undefined && (
        <div class="warn">
          {itemId} asks: <b>{asking}</b>
        </div>
      )}
      <textarea
        placeholder={asking !== undefined ? 'Your answer' : `A message to ${itemId}'s agent`}
        value={text}
        rows={2}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <button type="submit" disabled={sending || text.trim() === ''}>
        {asking !== undefined ? 'answer' : 'send'}
      </button>
      {said !== undefined && <div class={said.ok ? 'ok' : 'bad'}>{said.text}</div>}
    </form>
  );
}
