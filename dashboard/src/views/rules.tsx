import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, type ProposedRule, type RuleDecided, type Rules } from '../api.js';

// The rules proposed from the person's decisions, under the Review view's items: each with the
// evidence it rests on (the notes, the findings, the changes behind them), accepted or rejected
// with a note. Nothing of a rule is in force before a person accepts it.

const KIND_WORDS: Readonly<Record<ProposedRule['kind'], string>> = {
  follow: 'a rule every agent follows',
  dismiss: 'a finding the reviewer does not raise',
};

/** A decision on a rule sent to the server: its answer's words, or its refusal. */
async function decide(id: string, verb: 'accept' | 'reject', note?: string): Promise<string> {
  try {
    const body = note === undefined || note === '' ? {} : { note };
    return (await post<RuleDecided>(`/rules/${encodeURIComponent(id)}/${verb}`, body)).text;
  } catch (e) {
    return e instanceof ApiError ? e.message : String(e);
  }
}

/** The rules that wait on the person, or nothing when none does. */
export function ProposedRules({
  readOnly,
  onCount,
}: {
  readOnly: boolean;
  /** Told how many rules wait, each time they are read. */
  onCount: (waiting: number) => void;
}) {
  const [rules, setRules] = useState<Rules['proposed']>();
  const [said, setSaid] = useState<string>();
  const load = () =>
    void get<Rules>('/rules').then(
      (r) => {
        setRules(r.proposed);
        onCount(r.proposed.length);
      },
      (e: unknown) => setSaid(String(e)),
    );
  useEffect(load, []);
  if (rules === undefined || (rules.length === 0 && said === undefined)) return null;
  const done = (text: string) => {
    setSaid(text);
    load();
  };
  return (
    <section class="proposed-rules" id="proposed-rules">
      <h2>
        {rules.length === 0
          ? 'No rule waits on you'
          : `${rules.length} rule${rules.length === 1 ? '' : 's'} proposed from your decisions`}
      </h2>
      <p class="dim">
        Each takes effect only once you accept it: every later agent is told it, and the reviewer
        checks it.
      </p>
      {said !== undefined && (
        <div class="said" id="rules-said">
          {said}
        </div>
      )}
      <ol class="inbox">
        {rules.map((rule) => (
          <RuleRow key={rule.id} rule={rule} readOnly={readOnly} onDone={done} />
        ))}
      </ol>
    </section>
  );
}

/** One proposed rule: its text, kind and scope, its evidence folded, and its decisions. */
function RuleRow(props: { rule: ProposedRule; readOnly: boolean; onDone: (said: string) => void }) {
  const { rule, readOnly, onDone } = props;
  const [rejecting, setRejecting] = useState(false);
  const [note, setNote] = useState('');
  return (
    <li class="inbox-row rule-row" id={`rule-${rule.id}`}>
      <span class="risk low" title="a proposed rule">
        {rule.id}
      </span>
      <div class="inbox-main">
        <div>
          <b>{rule.text}</b>
        </div>
        <div class="dim">
          {KIND_WORDS[rule.kind]} ·{' '}
          {rule.scope.length === 0 ? 'the whole repository' : rule.scope.join(', ')} · proposed by{' '}
          {rule.cli ?? 'its proposer'} ({rule.proposal})
        </div>
        <details class="evidence-fold">
          <summary>
            rests on {rule.evidence.map((e) => e.id).join(', ')}: what was decided, and the changes
            behind it
          </summary>
          {rule.evidence.map((lesson) => (
            <div class="lesson" key={lesson.id}>
              <div>
                <b>{lesson.id}</b> <span class="dim">{lesson.kind}</span>
              </div>
              <pre class="task">{lesson.text}</pre>
              {lesson.items.map((item) => (
                <div key={item.id}>
                  <a href={`#/review/${item.id}`}>{item.id}</a>{' '}
                  <span class="dim">{item.title ?? ''}</span>
                  {item.diff !== undefined && <pre class="diff">{item.diff}</pre>}
                </div>
              ))}
            </div>
          ))}
        </details>
        {rejecting && (
          <form
            class="ask-box"
            onSubmit={(e) => {
              e.preventDefault();
              void decide(rule.id, 'reject', note).then(onDone);
            }}
          >
            <label for={`reject-${rule.id}`}>
              Reject {rule.id}: why (the proposer is told, and does not propose it again)
            </label>
            <textarea
              id={`reject-${rule.id}`}
              rows={2}
              value={note}
              onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
            />
            <div class="actions">
              <button type="submit">Reject</button>
              <button type="button" class="link" onClick={() => setRejecting(false)}>
                Back
              </button>
            </div>
          </form>
        )}
      </div>
      {!readOnly && !rejecting && (
        <div class="row-actions">
          <button onClick={() => void decide(rule.id, 'accept').then(onDone)}>Accept</button>
          <button onClick={() => setRejecting(true)}>Reject</button>
        </div>
      )}
    </li>
  );
}
