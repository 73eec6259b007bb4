import type { Price } from './config-schema.js';
import type { StreamSummary } from '../stream/summary.js';

/** What a session cost: the CLI's own figure, or an estimate from its tokens and a price. */
export interface SessionCost {
  usd: number;
  estimated: boolean;
}

/** The price of a session's model: by model name, else by the CLI's name (its default model). */
export function priceFor(
  prices: Readonly<Record<string, Price>>,
  cli: string,
  model: string | undefined,
): Price | undefined {
  return (model === undefined ? undefined : prices[model]) ?? prices[cli];
}

/**
 * The cost of a session so far: the CLI's figure when it gives one (claude's result, the costs
 * in its usage events), else its tokens at `price`; undefined when neither is known.
 */
export function costOf(summary: StreamSummary, price: Price | undefined): SessionCost | undefined {
  const reported = summary.result?.totalCostUsd ?? summary.reportedCostUsd;
  // A CLI that knows no price for its model reports $0: the configured price is the better figure.
  if (reported !== undefined && (reported > 0 || price === undefined))
    return { usd: reported, estimated: false };
  const tokens = summary.tokens;
  if (tokens === undefined || price === undefined) return undefined;
  const cached = Math.min(tokens.cacheReadTokens, tokens.inputTokens);
  const usd =
    ((tokens.inputTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      tokens.outputTokens * price.output) /
    1e6;
  return { usd, estimated: true };
}
