import type { Request, Response } from "./server";
import type { Next } from "./middleware";

/**
 * Sliding-window rate limit per client address (moved out of middleware.ts in 3.5; the
 * fixed window let a client send twice the limit across a window boundary).
 */
export function rateLimit(requestsPerMinute: number) {
  const hits = new Map<string, number[]>();
  return async (req: Request, res: Response, next: Next) => {
    const key = req.header("x-forwarded-for") ?? "unknown";
    const now = Date.now();
    const recent = (hits.get(key) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= requestsPerMinute) {
      res.status(429).json({ error: "rate_limited" });
      return;
    }
    recent.push(now);
    hits.set(key, recent);
    await next();
  };
}
