import type { Request, Response } from "./server";

type Next = () => Promise<void>;

export async function requireAuth(req: Request, res: Response, next: Next): Promise<void> {
  if (!req.header("authorization")?.startsWith("Bearer ")) {
    res.status(401).json({ error: "missing_token" });
    return;
  }
  await next();
}

/** Fixed-window rate limit per client address. */
export function rateLimit(requestsPerMinute: number) {
  const windows = new Map<string, { start: number; count: number }>();
  return async (req: Request, res: Response, next: Next) => {
    const key = req.header("x-forwarded-for") ?? "unknown";
    const now = Date.now();
    const window = windows.get(key);
    if (!window || now - window.start > 60_000) {
      windows.set(key, { start: now, count: 1 });
    } else if (++window.count > requestsPerMinute) {
      res.status(429).json({ error: "rate_limited" });
      return;
    }
    await next();
  };
}
