import type { Request, Response } from "./server";

export type Next = () => Promise<void>;

export async function requireAuth(req: Request, res: Response, next: Next): Promise<void> {
  if (!req.header("authorization")?.startsWith("Bearer ")) {
    res.status(401).json({ error: "missing_token" });
    return;
  }
  await next();
}
