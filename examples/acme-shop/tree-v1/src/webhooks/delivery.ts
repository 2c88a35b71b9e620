import { RetryPolicy } from "../retry/policy";
import { withRetry } from "../retry/with-retry";

/** Outbound webhooks to merchants: retried with the shared policy. */
export async function deliver(url: string, body: string, policy = RetryPolicy.standard()) {
  return withRetry(() => fetch(url, { method: "POST", body }), policy);
}
