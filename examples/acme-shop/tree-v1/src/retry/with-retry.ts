import { RetryPolicy } from "./policy";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    try {
      return await call();
    } catch (error) {
      lastError = error;
      if (!policy.retryOn(error) || attempt === policy.maxAttempts) break;
      await sleep(policy.delayFor(attempt));
    }
  }
  throw lastError;
}
