import { ShopApiClient } from "../generated/api-client";
import { RetryPolicy } from "../retry/policy";
import { withRetry } from "../retry/with-retry";

export interface Charge {
  id: string;
  amountCents: number;
}

/** Talks to the payment provider through the generated client, retrying transient errors. */
export class PaymentClient {
  constructor(
    private readonly api: ShopApiClient,
    private readonly policy: RetryPolicy = RetryPolicy.standard(),
  ) {}

  charge(customerId: string, amountCents: number): Promise<Charge> {
    return withRetry(() => this.api.createCharge({ customerId, amountCents }), this.policy);
  }
}
