import { RetryPolicy } from "../src/retry/policy";

/** Retry settings per environment; production backs off harder. */
export const retryPolicies: Record<string, RetryPolicy> = {
  development: RetryPolicy.none(),
  staging: new RetryPolicy(3, 100, 2_000),
  production: new RetryPolicy(5, 200, 10_000),
};
