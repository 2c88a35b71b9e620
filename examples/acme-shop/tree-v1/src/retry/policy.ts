/**
 * How a failed call is retried: how many attempts, how long to wait between them,
 * and which errors are worth retrying at all. Every outbound client shares this type.
 */
export class RetryPolicy {
  constructor(
    readonly maxAttempts: number,
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
    readonly retryOn: (error: unknown) => boolean = () => true,
  ) {
    if (maxAttempts < 1) {
      throw new RangeError("maxAttempts must be at least 1");
    }
  }

  /** Delay before attempt `attempt` (1-based), exponential with a ceiling. */
  delayFor(attempt: number): number {
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
  }

  static standard(): RetryPolicy {
    return new RetryPolicy(5, 200, 10_000);
  }

  static none(): RetryPolicy {
    return new RetryPolicy(1, 0, 0);
  }
}
