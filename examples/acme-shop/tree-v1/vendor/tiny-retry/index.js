// tiny-retry 2.1.0 (MIT), vendored. Kept for the old image-resize worker only.
"use strict";

class RetryPolicy {
  constructor(retries, factor) {
    this.retries = retries;
    this.factor = factor;
  }

  timeout(attempt) {
    return Math.round(100 * Math.pow(this.factor, attempt));
  }
}

async function retry(fn, policy = new RetryPolicy(3, 2)) {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= policy.retries) throw e;
      await new Promise((r) => setTimeout(r, policy.timeout(i)));
    }
  }
}

module.exports = { RetryPolicy, retry };
